// Lesson 01's request and header timeouts on lesson 12's API, in this process against a fresh
// database: a client that announces a body on POST /exports and sends nothing gets a JSON 408
// soon after the request timeout (Node's own answer was a bare 408 after five minutes), its
// connection is closed, no job and no outbox event are written and nobody is nudged, and the
// API goes on accepting jobs. Only upper bounds on time are asserted, generously, and the lower
// bound the server cannot beat (no 408 before its timeout).
import type { RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@tasks-lab/01-state-machine';
import { stallRequest } from '@tasks-lab/lab-kit';
import { expectJsonTimeout } from '@tasks-lab/lab-kit/testing';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { startServer } from '../src/server.ts';

const TIMEOUTS = { requestTimeoutMs: 1500, headersTimeoutMs: 500 };
/** Every job and every outbox event: a stalled request must add neither. Parameters: none. */
const COUNT_ROWS = 'SELECT (SELECT COUNT(*) FROM export_jobs) AS jobs, (SELECT COUNT(*) FROM export_outbox) AS events';

let db: FreshDatabase;
let api: RunningServer;
let nudges = 0;
beforeAll(async () => {
  db = await freshDatabase('timeouts');
  api = await startServer(0, { pool: db.pool, nudge: async () => (nudges += 1), log: () => {} }, undefined, TIMEOUTS);
}, 60_000);
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

async function countRows(): Promise<{ jobs: number; events: number }> {
  const [rows] = await db.pool.query<RowDataPacket[]>(COUNT_ROWS);
  return { jobs: Number(rows[0]?.jobs), events: Number(rows[0]?.events) };
}

const postExport = (productIds: number[]) =>
  fetch(`${api.url}/exports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ product_ids: productIds }),
  });

describe('lesson 12 API: request and header timeouts', () => {
  it('When POST /exports announces a 100-byte body and sends none, Then a JSON 408 arrives soon after the request timeout, the connection closes, no job or event is written, and the next job is accepted [test:body-timeout-json-408]', async () => {
    const before = await countRows();
    const nudgesBefore = nudges;
    expectJsonTimeout(await stallRequest(api.url, { stall: 'body' }), TIMEOUTS.requestTimeoutMs);
    expect(await countRows(), 'the stalled POST wrote nothing').toEqual(before);
    expect(nudges, 'nobody was nudged for it').toBe(nudgesBefore);

    expect((await postExport([1, 2])).status).toBe(202);
    expect(await countRows()).toEqual({ jobs: before.jobs + 1, events: before.events + 1 });
  });

  it('When the headers never finish, Then a JSON 408 arrives soon after the headers timeout and the connection closes [test:headers-timeout-json-408]', async () => {
    const before = await countRows();
    expectJsonTimeout(await stallRequest(api.url, { stall: 'headers' }), TIMEOUTS.headersTimeoutMs);
    expect(await countRows()).toEqual(before);
    expect((await postExport([3])).status).toBe(202);
  });
});
