// One delivery, run in this process against a fresh database: claim, write with no row
// locked, finish. The zombie tests pause a holder with the before-finish fault point,
// exactly as a drill does with LAB_FAULTS, and end its lease with an UPDATE meanwhile.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultPoints, faultRule, FAULTS_ENV, waitFor } from '@tasks-lab/lab-kit';
import { writeArtifactAtomically } from '../src/artifact.ts';
import { withTransaction } from '../src/database.ts';
import { freshDatabase, type FreshDatabase } from '../src/scratch-databases.ts';
import {
  EXPORT_FAULT_POINTS,
  deliverExport,
  exportFaults,
  type ExportContext,
  type ExportParts,
} from '../src/export-worker.ts';
import { EXPIRE_LEASE, PASS_DEADLINE } from '../src/job-queries.ts';
import { claim, readJob, requeueExpiredLease, submitSnapshot } from '../src/leases.ts';
import { SHORT_TIMINGS } from '../src/options.ts';

const LEASE_MS = SHORT_TIMINGS.leaseMs ?? 1500;

let db: FreshDatabase;
let artifactsDir: string;
beforeAll(async () => {
  db = await freshDatabase('deliver');
  artifactsDir = await mkdtemp(join(tmpdir(), 'lab11-deliver-'));
}, 60_000);
afterAll(async () => {
  await db?.drop();
  await rm(artifactsDir, { recursive: true, force: true });
});

function context(overrides: Partial<ExportContext> = {}): ExportContext {
  return { pool: db.pool, leaseMs: LEASE_MS, maxAttempts: 3, artifactsDir, faults: exportFaults({}), ...overrides };
}

/** How long the zombie pauses before its finish: meanwhile its lease is ended, the job requeued and a fresh holder publishes. */
const ZOMBIE_PAUSE_MS = 5000;

/** A holder that pauses before its finish, long enough for its lease to be ended and another holder to publish: a zombie in waiting. */
const pausedPastLease = () =>
  faultPoints(EXPORT_FAULT_POINTS, { [FAULTS_ENV]: faultRule('before-finish', `delay-${ZOMBIE_PAUSE_MS}`) });

/** The lesson's mistake, for the troubleshooting entry: a finish that matches on the job id only. */
const finishByIdOnly: ExportParts['finish'] = async (pool: Pool, jobId, _token, resultRef) => {
  const [updated] = await pool.query<ResultSetHeader>(
    "UPDATE export_jobs SET status = 'succeeded', result_ref = ? WHERE id = ?",
    [resultRef, jobId],
  );
  return updated.affectedRows === 1;
};

/** Runs a zombie: it claims and writes, pauses past its lease; meanwhile the job is requeued and a new holder publishes. */
async function zombieRace(zombieParts: Partial<ExportParts> = {}) {
  const { jobId } = await submitSnapshot(db.pool, [1, 2], { deadlineMs: 60_000 });
  const zombie = deliverExport({ job_id: jobId }, context({ faults: pausedPastLease(), parts: zombieParts }));
  // Wait for the zombie's claim, end its lease, recover the job by hand (lesson 15 automates it), claim again.
  // Race prevented: a timer started before the claim could run out while the claim's lease was still live
  // (claim delayed by a stall), so the requeue found a live lease and answered false.
  await waitFor('the zombie to claim the job', async () => (await readJob(db.pool, jobId))?.status === 'running');
  const [expired] = await db.pool.query<ResultSetHeader>(EXPIRE_LEASE, [jobId]);
  expect(expired.affectedRows).toBe(1);
  expect(await requeueExpiredLease(db.pool, jobId)).toBe(true);
  // Race prevented: with a 1.5 s lease a stall between the fresh claim and its finish could end the fresh
  // lease too; 30 s keeps it live, and the zombie's 5 s pause keeps the fresh delivery ahead of its finish.
  const fresh = await deliverExport({ job_id: jobId }, context({ leaseMs: 30_000 }));
  const afterFresh = await readJob(db.pool, jobId);
  const zombieOutcome = await zombie;
  return { jobId, fresh, afterFresh, zombieOutcome, final: await readJob(db.pool, jobId) };
}

describe('one delivery', () => {
  it('When the claim gets nothing, Then nothing is written and the delivery says claimed false [test:no-claim-no-file]', async () => {
    const { jobId } = await submitSnapshot(db.pool, [3], { deadlineMs: 60_000 });
    await claim(db.pool, jobId, { leaseMs: 30_000 }); // someone else holds it
    const before = await readdir(artifactsDir);
    const outcome = await deliverExport({ job_id: jobId }, context());
    expect(outcome).toEqual({ job_id: jobId, claimed: false, published: false });
    expect(await readdir(artifactsDir)).toEqual(before);
  });

  it('When the artifact is being written, Then the job row is not locked by anyone [test:no-row-lock-during-write]', async () => {
    const { jobId } = await submitSnapshot(db.pool, [1], { deadlineMs: 60_000 });
    let lockableDuringWrite: boolean | undefined;
    const writeWhileProbing: ExportParts['writeArtifact'] = async (dir, name, rows) => {
      // Another transaction asks for the row's lock without waiting: it gets the row only if nobody holds it.
      lockableDuringWrite = await withTransaction(db.pool, async (tx) => {
        const [rows] = await tx.query<RowDataPacket[]>(
          'SELECT id FROM export_jobs WHERE id = ? FOR UPDATE SKIP LOCKED',
          [jobId],
        );
        return rows.length === 1;
      });
      const { writeArtifactAtomically } = await import('../src/artifact.ts');
      return writeArtifactAtomically(dir, name, rows);
    };
    const outcome = await deliverExport({ job_id: jobId }, context({ parts: { writeArtifact: writeWhileProbing } }));
    expect(lockableDuringWrite).toBe(true);
    expect(outcome.published).toBe(true);
  });

  it('When a holder resumes after its lease passed and a new holder published, Then its finish changes nothing and its file is not the result [test:zombie-file-not-result]', async () => {
    const race = await zombieRace();
    expect(race.fresh).toMatchObject({ claimed: true, published: true });
    expect(race.zombieOutcome).toMatchObject({ claimed: true, published: false });
    expect(race.final?.status).toBe('succeeded');
    expect(race.final?.attempts).toBe(2);
    expect(race.final?.resultRef).toBe(race.afterFresh?.resultRef);
    // Both files exist, under different names: the zombie's is left over, never pointed at.
    const files = (await readdir(artifactsDir)).filter((name) => name.startsWith(race.jobId));
    expect(files).toHaveLength(2);
    expect(files).toContain(race.final?.resultRef);
  }, 20_000);

  it('When finish matches on the job id only (the mistake), Then the zombie overwrites the published result [test:finish-without-token-overwrites]', async () => {
    const race = await zombieRace({ finish: finishByIdOnly });
    expect(race.zombieOutcome.published).toBe(true);
    expect(race.final?.resultRef).not.toBe(race.afterFresh?.resultRef);
  }, 20_000);

  it('When the deadline passes while the lease is still live, Then the finish publishes nothing [test:finish-refused-after-deadline]', async () => {
    const { jobId } = await submitSnapshot(db.pool, [2], { deadlineMs: 60_000 });
    // A 30 s lease, but the deadline passes between the write and the finish (set by hand, not by a 1 s
    // deadline and a pause). Race prevented: a claim delayed past a short deadline claimed nothing at all.
    let deadlinesPassed = 0;
    const writeThenPassDeadline: ExportParts['writeArtifact'] = async (dir, name, rows) => {
      const written = await writeArtifactAtomically(dir, name, rows);
      const [passed] = await db.pool.query<ResultSetHeader>(PASS_DEADLINE, [jobId]);
      deadlinesPassed += passed.affectedRows;
      return written;
    };
    const outcome = await deliverExport(
      { job_id: jobId },
      context({ leaseMs: 30_000, parts: { writeArtifact: writeThenPassDeadline } }),
    );
    const row = await readJob(db.pool, jobId);
    expect(deadlinesPassed).toBe(1);
    expect(outcome).toMatchObject({ claimed: true, published: false });
    expect(row?.status).toBe('running');
    expect(row?.resultRef).toBeNull();
    expect(row!.leaseUntil!.getTime()).toBeGreaterThan(Date.now());
  });
});
