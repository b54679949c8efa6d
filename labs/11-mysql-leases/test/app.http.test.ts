// The API's order of events on POST /exports: validate, commit the row, wake a worker,
// answer. Run in this process against a fresh database; `wake` is a stand-in that looks
// at the table from outside the request when it is called.
import type { RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from '../src/scratch-databases.ts';
import { readJob } from '../src/leases.ts';
import type { RunningServer } from '@tasks-lab/01-state-machine';
import { startServer } from '../src/server.ts';

let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase('apphttp');
}, 60_000);
afterAll(() => db?.drop());

async function countJobs(): Promise<number> {
  const [rows] = await db.pool.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM export_jobs');
  return Number(rows[0]?.n);
}

async function withApi<T>(
  wake: (jobId: string) => Promise<unknown>,
  work: (api: RunningServer, log: string[]) => Promise<T>,
): Promise<T> {
  const log: string[] = [];
  const api = await startServer(0, { pool: db.pool, wake, log: (line) => log.push(line) });
  try {
    return await work(api, log);
  } finally {
    await api.close();
  }
}

const postExport = (url: string, productIds: number[]) =>
  fetch(`${url}/exports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ product_ids: productIds }),
  });

describe('POST /exports', () => {
  it('When a product does not exist, Then the answer is 422 naming it and no job row is left [test:missing-product-no-row]', async () => {
    await withApi(
      async () => {},
      async (api) => {
        const before = await countJobs();
        const answer = await postExport(api.url, [1, 987654]);
        const body = (await answer.json()) as { error: string; message: string };
        expect(answer.status).toBe(422);
        expect(body.error).toBe('missing-products');
        expect(body.message).toContain('987654');
        expect(await countJobs()).toBe(before);
      },
    );
  });

  it('When the worker is woken, Then the row is already committed and visible to another connection [test:wake-after-commit]', async () => {
    const seenByWake: (string | undefined)[] = [];
    // readJob runs on the pool, on a connection other than the request's transaction: it sees committed rows only.
    await withApi(
      async (jobId) => seenByWake.push((await readJob(db.pool, jobId))?.status),
      async (api) => {
        const answer = await postExport(api.url, [2]);
        expect(answer.status).toBe(202);
      },
    );
    expect(seenByWake).toEqual(['queued']);
  });

  it('When waking the worker fails (Redis down), Then the job is still accepted (202, queued) and the log says nobody was woken [test:wake-failure-keeps-job]', async () => {
    await withApi(
      async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6384')),
      async (api, log) => {
        const answer = await postExport(api.url, [3]);
        const body = (await answer.json()) as { id: string; status: string };
        expect(answer.status).toBe(202);
        expect((await readJob(db.pool, body.id))?.status).toBe('queued');
        expect(log.some((line) => line.includes(body.id) && line.includes('no worker was woken'))).toBe(true);
      },
    );
  });
});
