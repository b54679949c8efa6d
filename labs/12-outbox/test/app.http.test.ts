// The API's order of events on POST /exports in lesson 12: validate, commit the job AND its
// outbox event, nudge the publisher, answer. Run in this process against a fresh database;
// `nudge` is a stand-in that looks at the tables from outside the request when it is called.
import type { RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { COUNT_JOB_AND_EVENTS } from '../src/outbox-queries.ts';
import { startServer } from '../src/server.ts';
import type { RunningServer } from '@tasks-lab/01-state-machine';

let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase('apphttp');
}, 60_000);
afterAll(() => db?.drop());

async function countAll(): Promise<{ jobs: number; events: number }> {
  const [rows] = await db.pool.query<RowDataPacket[]>(
    'SELECT (SELECT COUNT(*) FROM export_jobs) AS jobs, (SELECT COUNT(*) FROM export_outbox) AS events',
  );
  return { jobs: Number(rows[0]?.jobs), events: Number(rows[0]?.events) };
}

async function countOf(jobId: string): Promise<{ jobs: number; events: number; unsent: number }> {
  const [rows] = await db.pool.query<RowDataPacket[]>(COUNT_JOB_AND_EVENTS, [jobId, jobId]);
  const [unsent] = await db.pool.query<RowDataPacket[]>(
    'SELECT COUNT(*) AS n FROM export_outbox WHERE job_id = ? AND sent_at IS NULL',
    [jobId],
  );
  return { jobs: Number(rows[0]?.jobs), events: Number(rows[0]?.events), unsent: Number(unsent[0]?.n) };
}

async function withApi<T>(
  nudge: () => Promise<unknown>,
  work: (api: RunningServer, log: string[]) => Promise<T>,
): Promise<T> {
  const log: string[] = [];
  const api = await startServer(0, {
    pool: db.pool,
    nudge,
    queueName: 'exports-apphttp',
    log: (line) => log.push(line),
  });
  try {
    return await work(api, log);
  } finally {
    await api.close();
  }
}

const postExport = (url: string, productIds: number[], headers: Record<string, string> = {}) =>
  fetch(`${url}/exports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ product_ids: productIds }),
  });

describe('POST /exports', () => {
  it('When the publisher is nudged, Then the job and its unsent event are already committed and visible to another connection [test:post-answers-after-commit]', async () => {
    const seenByNudge: { jobs: number; events: number; unsent: number }[] = [];
    // The nudge runs on the pool, on a connection other than the request's transaction: it sees committed rows only.
    const newestJob = async () => {
      const [rows] = await db.pool.query<RowDataPacket[]>(
        'SELECT id FROM export_jobs ORDER BY created_at DESC, id LIMIT 1',
      );
      return String(rows[0]?.id ?? '');
    };
    const answer = await withApi(
      async () => seenByNudge.push(await countOf(await newestJob())),
      async (api) => {
        const response = await postExport(api.url, [2]);
        return { status: response.status, body: (await response.json()) as { id: string; status: string } };
      },
    );
    const { body } = answer;
    expect(answer.status).toBe(202);
    expect(body.status).toBe('queued');
    expect(await newestJob()).toBe(body.id);
    expect(seenByNudge).toEqual([{ jobs: 1, events: 1, unsent: 1 }]);
  });

  it('When the nudge fails (Redis down), Then the job is still accepted (202) with its unsent event, and the log says polling will send it [test:nudge-failure-keeps-job]', async () => {
    await withApi(
      async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6384')),
      async (api, log) => {
        const answer = await postExport(api.url, [3]);
        const body = (await answer.json()) as { id: string; status: string };
        expect(answer.status).toBe(202);
        expect(body.status).toBe('queued');
        expect(await countOf(body.id)).toEqual({ jobs: 1, events: 1, unsent: 1 });
        expect(log.join('\n')).toMatch(/polling will send it/);
      },
    );
  });

  it('When a product does not exist, Then the answer is 422 and neither a job nor an event is left [test:missing-product-no-rows]', async () => {
    await withApi(
      async () => {},
      async (api) => {
        const before = await countAll();
        const answer = await postExport(api.url, [1, 987654]);
        const body = (await answer.json()) as { error: string; message: string };
        expect(answer.status).toBe(422);
        expect(body.error).toBe('missing-products');
        expect(await countAll()).toEqual(before);
      },
    );
  });

  it('When the same Idempotency-Key and body are sent twice, Then one job and one event exist and the second answer is a replay [test:idempotent-submit-one-event]', async () => {
    await withApi(
      async () => {},
      async (api) => {
        const key = `apphttp-${Date.now()}`;
        const first = await postExport(api.url, [1, 2], { 'Idempotency-Key': key });
        const retry = await postExport(api.url, [1, 2], { 'Idempotency-Key': key });
        const a = (await first.json()) as { id: string };
        const b = (await retry.json()) as { id: string };
        expect([first.status, retry.status]).toEqual([202, 202]);
        expect(b.id).toBe(a.id);
        expect(retry.headers.get('idempotent-replayed')).toBe('true');
        expect(await countOf(a.id)).toMatchObject({ jobs: 1, events: 1 });
      },
    );
  });
});
