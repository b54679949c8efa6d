// One delivery, run in this process against a fresh database: claim, write with no row
// locked, finish. The zombie tests pause a holder past its lease with the before-finish
// fault point, exactly as a drill does with LAB_FAULTS.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultPoints, faultRule, FAULTS_ENV } from '@tasks-lab/lab-kit';
import { withTransaction, freshDatabase, type FreshDatabase } from '../src/database.ts';
import { EXPORT_FAULT_POINTS, deliverExport, exportFaults, type ExportContext, type ExportParts } from '../src/export-worker.ts';
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

/** A holder that pauses before its finish until well past its lease: a zombie in waiting. */
const pausedPastLease = () => faultPoints(EXPORT_FAULT_POINTS, { [FAULTS_ENV]: faultRule('before-finish', `delay-${LEASE_MS + 1000}`) });

/** The lesson's mistake, for the troubleshooting entry: a finish that matches on the job id only. */
const finishByIdOnly: ExportParts['finish'] = async (pool: Pool, jobId, _token, resultRef) => {
  const [updated] = await pool.query<ResultSetHeader>("UPDATE export_jobs SET status = 'succeeded', result_ref = ? WHERE id = ?", [resultRef, jobId]);
  return updated.affectedRows === 1;
};

/** Runs a zombie: it claims and writes, pauses past its lease; meanwhile the job is requeued and a new holder publishes. */
async function zombieRace(zombieParts: Partial<ExportParts> = {}) {
  const { jobId } = await submitSnapshot(db.pool, [1, 2], { deadlineMs: 60_000 });
  const zombie = deliverExport({ job_id: jobId }, context({ faults: pausedPastLease(), parts: zombieParts }));
  // Wait until the zombie's lease has passed, recover the job by hand (lesson 15 automates it), claim again.
  await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 200));
  expect(await requeueExpiredLease(db.pool, jobId)).toBe(true);
  const fresh = await deliverExport({ job_id: jobId }, context());
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
        const [rows] = await tx.query<RowDataPacket[]>('SELECT id FROM export_jobs WHERE id = ? FOR UPDATE SKIP LOCKED', [jobId]);
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
    const { jobId } = await submitSnapshot(db.pool, [2], { deadlineMs: 1000 });
    // A 30 s lease, but the holder pauses 1.5 s before its finish: past the 1 s deadline.
    const slow = faultPoints(EXPORT_FAULT_POINTS, { [FAULTS_ENV]: faultRule('before-finish', 'delay-1500') });
    const outcome = await deliverExport({ job_id: jobId }, context({ leaseMs: 30_000, faults: slow }));
    const row = await readJob(db.pool, jobId);
    expect(outcome).toMatchObject({ claimed: true, published: false });
    expect(row?.status).toBe('running');
    expect(row?.resultRef).toBeNull();
    expect(row!.leaseUntil!.getTime()).toBeGreaterThan(Date.now());
  });
});
