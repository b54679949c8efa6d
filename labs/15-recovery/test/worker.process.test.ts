// The bulk worker as a real process, on a fresh database and a BullMQ prefix of this file's own,
// stopped with SIGTERM while an export runs (slowed before each chunk by its fault point):
//   - within the grace, the running export finishes and is published, no job is taken after the
//     signal, and the process exits 0;
//   - past the grace, the running export is aborted at its next chunk boundary: no artifact, no
//     finish (the row keeps its lease for the scanner), and the process still exits 0.
// The publisher runs in this process (lesson 12's, with lesson 15's confirmation).
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTS_ENV, launchProcess, waitFor, type LabProcess } from '@tasks-lab/lab-kit';
import { openQueue } from '@tasks-lab/08-broker-worker';
import { readJob, seedProducts } from '@tasks-lab/11-mysql-leases';
import { publisherFaults, startPublisher, type RunningPublisher } from '@tasks-lab/12-outbox';
import { admitExport, BULK_QUEUE, exportsAddress, FAST_QUEUE } from '@tasks-lab/13-admission';
import { BULK_PRODUCTS, claimsIn, deliveriesIn } from '../scripts/interrupt-scenarios.ts';
import { dispatchRecordingParts } from '../src/confirm.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { QUEUE_PREFIX, readShortRecoveryOptions, RECOVERY_OPTIONS, WORKER_PROCESS_OPTIONS } from '../src/options.ts';

const WORKER = fileURLToPath(new URL('../src/worker.ts', import.meta.url));
/** The job's row, locked for the rest of the test's transaction (a stand-in for a slow confirmation). Parameters: [jobId]. */
const LOCK_JOB_ROW = 'SELECT id FROM export_jobs WHERE id = ? FOR UPDATE';
const prefix = `${QUEUE_PREFIX}-x${randomBytes(4).toString('hex')}`;
// A lease far longer than the test: the worker stops because of the signal, never the lease.
const timings = readShortRecoveryOptions({}, { leaseMs: 30_000, chunkRows: 10 });
let db: FreshDatabase;
let artifactsDir: string;
let publisher: RunningPublisher;
const workers: LabProcess[] = [];

beforeAll(async () => {
  db = await freshDatabase('sigterm', { settings: timings });
  await seedProducts(db.pool, 45);
  artifactsDir = await mkdtemp(join(tmpdir(), 'tasks-lab15-artifacts-'));
  publisher = await startPublisher({
    pool: db.pool,
    timings,
    prefix,
    faults: publisherFaults({}),
    parts: dispatchRecordingParts(),
    report: () => {},
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
  await publisher?.close();
  for (const queueName of [FAST_QUEUE, BULK_QUEUE] as const) {
    const queue = await openQueue(exportsAddress(queueName, prefix));
    await queue.obliterate({ force: true });
    await queue.close();
  }
  await db?.drop();
  if (artifactsDir) await rm(artifactsDir, { recursive: true, force: true });
});

async function launchBulkWorker(
  graceMs: number,
  chunkDelayMs: number,
  queue: 'bulk' | 'fast' = 'bulk',
): Promise<LabProcess> {
  const worker = await launchProcess(WORKER, {
    args: [queue],
    ready: /export worker \d+ ready/,
    env: {
      ...RECOVERY_OPTIONS.toEnv(timings),
      ...WORKER_PROCESS_OPTIONS.toEnv({ database: db.name, artifactsDir, queuePrefix: prefix, concurrency: 1 }),
      WORKER_SHUTDOWN_GRACE_MS: String(graceMs),
      [FAULTS_ENV]: chunkDelayMs > 0 ? `before-chunk:delay-${chunkDelayMs}:always` : '',
    },
  });
  workers.push(worker);
  return worker;
}

async function submitAndWaitForClaim(worker: LabProcess): Promise<string> {
  const { jobId } = await admitExport(db.pool, BULK_PRODUCTS, { rules: timings });
  publisher.nudge();
  await waitFor('the claim', () => claimsIn(worker.output()).some((c) => c.jobId === jobId), {
    timeoutMs: 10_000,
    intervalMs: 50,
  });
  return jobId;
}

describe('the bulk worker process on SIGTERM', () => {
  it('When SIGTERM arrives mid-export, Then the export finishes within the grace, no job is taken after the signal, and the exit code is 0 [test:worker-sigterm-finishes-within-grace]', async () => {
    const worker = await launchBulkWorker(10_000, 300);
    const running = await submitAndWaitForClaim(worker);
    worker.child.kill('SIGTERM');
    // Submitted after the signal: its wake-up reaches the queue, and nobody may take it.
    const { jobId: late } = await admitExport(db.pool, [1, 2], { rules: timings, queueName: BULK_QUEUE });
    publisher.nudge();
    const exit = await worker.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(worker.output()).toMatch(/SIGTERM: closing/);
    expect(deliveriesIn(worker.output()).find((d) => d.jobId === running)).toMatchObject({
      published: true,
      chunksWritten: 4,
      chunksTotal: 4,
    });
    expect((await readJob(db.pool, running))?.status).toBe('succeeded');
    expect(claimsIn(worker.output()).map((c) => c.jobId)).not.toContain(late);
    expect(await readJob(db.pool, late)).toMatchObject({ status: 'queued', attempts: 0 });
  }, 60_000);

  it('When the grace runs out mid-export, Then the export is aborted at the next chunk boundary: no artifact, no finish, exit code 0 [test:worker-sigterm-aborts-after-grace]', async () => {
    const worker = await launchBulkWorker(300, 500);
    const jobId = await submitAndWaitForClaim(worker);
    const exit = await worker.stop(15_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(worker.output()).toMatch(/aborting them/);
    const delivery = deliveriesIn(worker.output()).find((d) => d.jobId === jobId);
    expect(delivery).toMatchObject({ claimed: true, published: false, stoppedBecause: 'aborted' });
    expect(delivery!.chunksWritten).toBeLessThan(delivery!.chunksTotal);
    // The row keeps its lease: the scanner requeues it once the lease is over.
    expect(await readJob(db.pool, jobId)).toMatchObject({ status: 'running', attempts: 1 });
    // (The first test's late job is taken by this worker first, and published: only this job's files count.)
    expect((await readdir(artifactsDir)).filter((f) => f.startsWith(jobId))).toEqual([]);
  }, 60_000);

  it('When a small export is sent to the fast worker, Then it is claimed, written in one chunk and published, and SIGTERM exits 0 [test:fast-worker-delivers-in-chunks]', async () => {
    const worker = await launchBulkWorker(10_000, 0, 'fast');
    expect(worker.output()).toMatch(/queue exports\.fast .*jobs products\.export and schedule-tick/);
    const { jobId, queueName } = await admitExport(db.pool, [1, 2, 3], { rules: timings });
    expect(queueName).toBe(FAST_QUEUE);
    publisher.nudge();
    await waitFor('the delivery', () => deliveriesIn(worker.output()).some((d) => d.jobId === jobId), {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    expect(deliveriesIn(worker.output()).find((d) => d.jobId === jobId)).toMatchObject({
      claimed: true,
      published: true,
      chunksWritten: 1,
      chunksTotal: 1,
    });
    expect(await readJob(db.pool, jobId)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(await worker.stop(15_000)).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('When the claim finds the row locked past one lock wait, Then the delivery is put back (not failed, no attempt spent) and claims the job once the lock is gone [test:worker-busy-claim-put-back]', async () => {
    const worker = await launchBulkWorker(10_000, 0, 'fast');
    const { jobId } = await admitExport(db.pool, [1, 2], { rules: timings });
    const tx = await db.pool.getConnection();
    try {
      await tx.beginTransaction();
      await tx.query(LOCK_JOB_ROW, [jobId]);
      publisher.nudge();
      await waitFor('a busy claim', () => worker.output().includes(`claim of job ${jobId}`), {
        timeoutMs: 10_000,
        intervalMs: 50,
      });
      await tx.commit();
    } finally {
      tx.release();
    }
    await waitFor('the delivery', () => deliveriesIn(worker.output()).some((d) => d.jobId === jobId && d.published), {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    expect(worker.output()).toMatch(
      new RegExp(
        `claim of job ${jobId} \\(BullMQ id [^)]+\\) found its row busy: put back for ${timings.claimBusyRetryMs} ms`,
      ),
    );
    expect(worker.output()).not.toMatch(/ failed: /);
    expect(await readJob(db.pool, jobId)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(await worker.stop(15_000)).toEqual({ code: 0, signal: null });
  }, 60_000);
});
