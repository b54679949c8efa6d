// Lesson 01's request and header timeouts on lesson 16's API, in this process against a fresh
// database: a client that announces a body on POST /exports and sends nothing gets a JSON 408
// soon after the request timeout (Node's own answer was a bare 408 after five minutes), its
// connection is closed, no job or event is written and no `accepted` phase line is logged, and
// the API goes on serving, /metrics included. Only upper bounds on time are asserted,
// generously, and the lower bound the server cannot beat (no 408 before its timeout).
import type { RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@tasks-lab/01-state-machine';
import { stallRequest } from '@tasks-lab/lab-kit';
import { expectJsonTimeout } from '@tasks-lab/lab-kit/testing';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { createPhaseLogger, parsePhaseLines } from '../src/phase-log.ts';
import { startServer } from '../src/server.ts';

const TIMEOUTS = { requestTimeoutMs: 1500, headersTimeoutMs: 500 };
/** Every job and every outbox event: a stalled request must add neither. Parameters: none. */
const COUNT_ROWS = 'SELECT (SELECT COUNT(*) FROM export_jobs) AS jobs, (SELECT COUNT(*) FROM export_outbox) AS events';

let db: FreshDatabase;
let api: RunningServer;
let phaseLines = '';
beforeAll(async () => {
  db = await freshDatabase('timeouts');
  const logger = createPhaseLogger({
    component: 'api',
    destination: { write: (chunk: string) => void (phaseLines += chunk) },
  });
  api = await startServer(0, { pool: db.pool, nudge: async () => {}, logger, log: () => {} }, undefined, TIMEOUTS);
}, 60_000);
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

async function countRows(): Promise<{ jobs: number; events: number }> {
  const [rows] = await db.pool.query<RowDataPacket[]>(COUNT_ROWS);
  return { jobs: Number(rows[0]?.jobs), events: Number(rows[0]?.events) };
}

const accepted = () => parsePhaseLines(phaseLines).filter((line) => line.phase === 'accepted').length;

const postExport = (productIds: number[]) =>
  fetch(`${api.url}/exports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ product_ids: productIds }),
  });

describe('lesson 16 API: request and header timeouts', () => {
  it('When POST /exports announces a 100-byte body and sends none, Then a JSON 408 arrives soon after the request timeout, the connection closes, nothing is written or logged as accepted, and the API still serves [test:body-timeout-json-408]', async () => {
    const before = await countRows();
    const acceptedBefore = accepted();
    expectJsonTimeout(await stallRequest(api.url, { stall: 'body' }), TIMEOUTS.requestTimeoutMs);
    expect(await countRows(), 'the stalled POST wrote nothing').toEqual(before);
    expect(accepted(), 'no accepted line for it').toBe(acceptedBefore);

    expect((await postExport([1, 2])).status).toBe(202);
    expect(accepted()).toBe(acceptedBefore + 1);
    expect((await fetch(`${api.url}/metrics`)).status).toBe(200);
  });

  it('When the headers never finish, Then a JSON 408 arrives soon after the headers timeout and the connection closes [test:headers-timeout-json-408]', async () => {
    const before = await countRows();
    expectJsonTimeout(await stallRequest(api.url, { stall: 'headers' }), TIMEOUTS.headersTimeoutMs);
    expect(await countRows()).toEqual(before);
    expect((await postExport([3])).status).toBe(202);
  });
});
