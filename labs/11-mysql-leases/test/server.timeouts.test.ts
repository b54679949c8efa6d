// Lesson 01's request and header timeouts on lesson 11's API, in this process against a fresh
// database: a client that announces a body on POST /exports and sends nothing gets a JSON 408
// soon after the request timeout (Node's own answer was a bare 408 after five minutes), its
// connection is closed, no job row is written and no worker is woken, and the API goes on
// accepting jobs. Only upper bounds on time are asserted, generously, and the lower bound the
// server cannot beat (no 408 before its timeout).
import type { RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@tasks-lab/01-state-machine';
import { stallRequest } from '@tasks-lab/lab-kit';
import { expectJsonTimeout } from '@tasks-lab/lab-kit/testing';
import { freshDatabase, type FreshDatabase } from '../src/scratch-databases.ts';
import { startServer } from '../src/server.ts';

const TIMEOUTS = { requestTimeoutMs: 1500, headersTimeoutMs: 500 };
/** Every job row: a stalled request must add none. Parameters: none. */
const COUNT_JOBS = 'SELECT COUNT(*) AS jobs FROM export_jobs';

let db: FreshDatabase;
let api: RunningServer;
const woken: string[] = [];
beforeAll(async () => {
  db = await freshDatabase('timeouts');
  api = await startServer(
    0,
    { pool: db.pool, wake: async (jobId) => woken.push(jobId), log: () => {} },
    undefined,
    TIMEOUTS,
  );
}, 60_000);
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

async function countJobs(): Promise<number> {
  const [rows] = await db.pool.query<RowDataPacket[]>(COUNT_JOBS);
  return Number(rows[0]?.jobs);
}

const postExport = (productIds: number[]) =>
  fetch(`${api.url}/exports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ product_ids: productIds }),
  });

describe('lesson 11 API: request and header timeouts', () => {
  it('When POST /exports announces a 100-byte body and sends none, Then a JSON 408 arrives soon after the request timeout, the connection closes, no row is written, no worker is woken, and the next job is accepted [test:body-timeout-json-408]', async () => {
    const before = await countJobs();
    expectJsonTimeout(await stallRequest(api.url, { stall: 'body' }), TIMEOUTS.requestTimeoutMs);
    expect(await countJobs(), 'the stalled POST wrote no job').toBe(before);
    expect(woken, 'nothing was woken for it').toEqual([]);

    expect((await postExport([1, 2])).status).toBe(202);
    expect(await countJobs()).toBe(before + 1);
    expect(woken).toHaveLength(1);
  });

  it('When the headers never finish, Then a JSON 408 arrives soon after the headers timeout and the connection closes [test:headers-timeout-json-408]', async () => {
    const before = await countJobs();
    expectJsonTimeout(await stallRequest(api.url, { stall: 'headers' }), TIMEOUTS.headersTimeoutMs);
    expect(await countJobs()).toBe(before);
    expect((await postExport([3])).status).toBe(202);
  });
});
