// POST /exports/:id/cancel and POST /exports/:id/replay at their edges, in this process against a
// fresh database. The jobs are brought to each state by the real parts: lesson 13's admission
// (queued), the claim (running), lesson 13's finishAndLeave (succeeded), and the recovery batch
// after an expired lease with one attempt allowed (failed). Nobody listens to the nudges here.
import type { RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@tasks-lab/01-state-machine';
import { readJob } from '@tasks-lab/11-mysql-leases';
import { admitExport, finishAndLeave, readGateCounter } from '@tasks-lab/13-admission';
import { sleep } from '@tasks-lab/lab-kit';
import { claimOrWait } from '../src/claim.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { recoverBatch } from '../src/recovery.ts';
import { startServer } from '../src/server.ts';

let db: FreshDatabase;
let api: RunningServer;
let nudges = 0;
const lines: string[] = [];

beforeAll(async () => {
  db = await freshDatabase('apphttp');
  api = await startServer(0, {
    pool: db.pool,
    nudge: async () => (nudges += 1),
    onAdmission: () => {},
    onRecoveryRequest: (line) => lines.push(line),
    log: (line) => lines.push(line),
  });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

interface Answer {
  status: number;
  location: string | null;
  body: Record<string, unknown> & {
    status?: string;
    error?: string;
    job?: { id: string; status: string };
    id?: string;
    replay_of?: string;
    deadline_at?: string;
    created_at?: string;
  };
}

async function post(
  path: string,
  request: { body?: unknown; key?: string; server?: RunningServer } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  if (request.key !== undefined) headers['idempotency-key'] = request.key;
  const response = await fetch(`${(request.server ?? api).url}${path}`, {
    method: 'POST',
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return {
    status: response.status,
    location: response.headers.get('location'),
    body: (await response.json()) as Answer['body'],
  };
}

/** A job's deadline counted from its creation, in ms, from the API's answer. */
const deadlineSpanMs = (body: Answer['body']) =>
  Date.parse(String(body.deadline_at)) - Date.parse(String(body.created_at));

/** How many jobs there are, and how many name `?` as the job they replay: a refused request changes neither. Parameters: [failedJobId]. */
const COUNT_JOBS_AND_REPLAYS = `SELECT COUNT(*) AS jobs, SUM(replay_of <=> ?) AS replays FROM export_jobs`;
async function rowsNow(failedJobId: string) {
  const [rows] = await db.pool.query<RowDataPacket[]>(COUNT_JOBS_AND_REPLAYS, [failedJobId]);
  return { jobs: Number(rows[0]?.jobs), replays: Number(rows[0]?.replays), gate: await readGateCounter(db.pool) };
}

const queuedJob = async () => (await admitExport(db.pool, [1, 2])).jobId;

async function runningJob(leaseMs = 30_000): Promise<string> {
  const jobId = await queuedJob();
  const attempt = await claimOrWait(db.pool, jobId, { leaseMs, maxAttempts: 3 });
  expect(attempt.outcome).toBe('claimed');
  return jobId;
}

async function succeededJob(): Promise<string> {
  const jobId = await queuedJob();
  const attempt = await claimOrWait(db.pool, jobId, { leaseMs: 30_000, maxAttempts: 3 });
  if (attempt.outcome !== 'claimed') throw new Error(`claim: ${attempt.outcome}`);
  expect(await finishAndLeave(db.pool, jobId, attempt.job.token, `${jobId}.${attempt.job.token}.json`)).toBe(true);
  return jobId;
}

/** One attempt allowed, a 100 ms lease, left to expire: the recovery batch fails the job (attempts_exhausted). */
async function failedJob(): Promise<string> {
  const jobId = await queuedJob();
  const attempt = await claimOrWait(db.pool, jobId, { leaseMs: 100, maxAttempts: 1 });
  expect(attempt.outcome).toBe('claimed');
  await sleep(300);
  await recoverBatch(db.pool, { batch: 50, retryBackoffMs: 500, unclaimedThresholdMs: 60_000, maxAttempts: 1 });
  expect((await readJob(db.pool, jobId))?.status).toBe('failed');
  return jobId;
}

describe('POST /exports/:id/cancel', () => {
  it('When a queued job is cancelled twice, Then 202 cancel-requested, then 202 already-requested, the flag set once [test:http-cancel-202-then-already]', async () => {
    const jobId = await queuedJob();
    const first = await post(`/exports/${jobId}/cancel`);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ status: 'cancel-requested', job: { id: jobId, status: 'queued' } });
    const afterFirst = await readJob(db.pool, jobId);
    expect(afterFirst?.cancelRequested).toBe(true);
    const again = await post(`/exports/${jobId}/cancel`);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ status: 'already-requested', job: { id: jobId, status: 'queued' } });
    // Harmless: the row did not change again.
    expect((await readJob(db.pool, jobId))?.updatedAt).toEqual(afterFirst?.updatedAt);
  });

  it('When a running job is cancelled, Then 202 cancel-requested and the job is still running (the worker and the scanner finish the cancel) [test:http-cancel-running]', async () => {
    const jobId = await runningJob();
    const answer = await post(`/exports/${jobId}/cancel`);
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ status: 'cancel-requested', job: { id: jobId, status: 'running' } });
    expect((await readJob(db.pool, jobId))?.cancelRequested).toBe(true);
  });

  it('When a succeeded job is cancelled, Then 409 job-terminal and nothing changed, the gate counter included [test:http-cancel-terminal-409-unchanged]', async () => {
    const jobId = await succeededJob();
    const before = await readJob(db.pool, jobId);
    const gate = await readGateCounter(db.pool);
    const answer = await post(`/exports/${jobId}/cancel`);
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('job-terminal');
    expect(await readJob(db.pool, jobId)).toEqual(before);
    expect(before?.cancelRequested).toBe(false);
    expect(await readGateCounter(db.pool)).toBe(gate);
  });

  it('When the id is unknown, upper case or not a UUID, Then 404, the same job, 400 [test:http-cancel-id-canonical]', async () => {
    expect((await post('/exports/00000000-0000-4000-8000-000000000000/cancel')).status).toBe(404);
    expect((await post('/exports/not-a-uuid/cancel')).body).toMatchObject({ error: 'invalid-id' });
    const jobId = await queuedJob();
    const upper = await post(`/exports/${jobId.toUpperCase()}/cancel`);
    expect(upper.body).toMatchObject({ status: 'cancel-requested', job: { id: jobId } });
  });

  it('When GET is used, Then 405 with Allow: POST [test:http-cancel-405]', async () => {
    const response = await fetch(`${api.url}/exports/00000000-0000-4000-8000-000000000000/cancel`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('POST /exports/:id/replay', () => {
  it('When a failed job is replayed, Then 202 with the Location of a NEW queued job whose replay_of names it, and the failed job is kept as it was [test:http-replay-links]', async () => {
    const failedId = await failedJob();
    const before = await readJob(db.pool, failedId);
    const nudgesBefore = nudges;
    const answer = await post(`/exports/${failedId}/replay`);
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ status: 'queued', replay_of: failedId, product_ids: [1, 2], attempts: 0 });
    const newId = answer.body.id;
    expect(newId).not.toBe(failedId);
    expect(answer.location).toBe(`/exports/${newId}`);
    expect(nudges - nudgesBefore).toBe(1);
    expect(await readJob(db.pool, failedId)).toEqual(before);
    const follow = await fetch(`${api.url}${answer.location}`);
    expect(await follow.json()).toMatchObject({ id: newId, status: 'queued' });
  });

  it('When a job that is not failed is replayed, Then 409 not-replayable and no job is created; an unknown one 404 [test:http-replay-not-failed-409]', async () => {
    const jobId = await queuedJob();
    const answer = await post(`/exports/${jobId}/replay`);
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('not-replayable');
    const succeeded = await succeededJob();
    expect((await post(`/exports/${succeeded}/replay`)).status).toBe(409);
    expect((await post('/exports/00000000-0000-4000-8000-000000000000/replay')).status).toBe(404);
  });
  it("When the server runs with another EXPORT_DEADLINE_MS, Then a replay gets that deadline, as a new job does, not the course's 10 minutes [test:http-replay-deadline-setting]", async () => {
    const deadlineMs = 4 * 60_000;
    const server = await startServer(0, {
      pool: db.pool,
      nudge: async () => {},
      onAdmission: () => {},
      onRecoveryRequest: () => {},
      log: () => {},
      deadlineMs,
    });
    try {
      const submitted = await post('/exports', { body: { product_ids: [1, 2] }, server });
      expect(submitted.status).toBe(202);
      expect(deadlineSpanMs(submitted.body)).toBe(deadlineMs);
      const replayed = await post(`/exports/${await failedJob()}/replay`, { server });
      expect(replayed.status).toBe(202);
      expect(deadlineSpanMs(replayed.body)).toBe(deadlineMs);
    } finally {
      await server.close();
    }
  });

  it('When a POST /exports reuses the Idempotency-Key of a replay, Then 409 idempotency-key-reused and nothing is created, while the replay retried with it answers its job [test:http-replay-key-refused-by-post]', async () => {
    const failedId = await failedJob();
    const key = `replay-${failedId}`;
    const replayed = await post(`/exports/${failedId}/replay`, { key });
    expect(replayed.status).toBe(202);
    const before = await rowsNow(failedId);
    // The replay's very products, so only the operation differs.
    const reused = await post('/exports', { body: { product_ids: [1, 2] }, key });
    expect(reused.status).toBe(409);
    expect(reused.body.error).toBe('idempotency-key-reused');
    expect(await rowsNow(failedId)).toEqual(before);
    const retried = await fetch(`${api.url}/exports/${failedId}/replay`, {
      method: 'POST',
      headers: { 'idempotency-key': key },
    });
    expect(retried.status).toBe(202);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(((await retried.json()) as { id: string }).id).toBe(replayed.body.id);
  });

  it('When a replay reuses the Idempotency-Key of a POST /exports, Then 409 idempotency-key-reused and nothing is created [test:http-post-key-refused-by-replay]', async () => {
    const failedId = await failedJob();
    const key = `submit-${failedId}`;
    const submitted = await post('/exports', { body: { product_ids: [1, 2] }, key });
    expect(submitted.status).toBe(202);
    const before = await rowsNow(failedId);
    const reused = await post(`/exports/${failedId}/replay`, { key });
    expect(reused.status).toBe(409);
    expect(reused.body.error).toBe('idempotency-key-reused');
    expect(await rowsNow(failedId)).toEqual({ ...before, replays: 0 });
  });
});
