// Housekeeping (src/housekeeping.ts), each case on a fresh database of its own and a scratch
// folder: the retention and the first-event rule on sent events, batches, terminal jobs with
// what points at them (and the failed job a replay names), the grace on unreferenced files.
// States come from the real parts; ages are named UPDATEs and utimes, as in the checks.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '@tasks-lab/lab-kit';
import { artifactName } from '@tasks-lab/11-mysql-leases';
import { FAST_QUEUE, finishAndLeave } from '@tasks-lab/13-admission';
import { scheduleOnce } from '@tasks-lab/14-schedule-slots';
import { claimOrWait, recoverBatch, replayJob, requestCancel, writeArtifactInChunks } from '@tasks-lab/15-recovery';
import { MARK_EVENTS_SENT_AGO } from '@tasks-lab/15-recovery';
import { AGE_JOB, EVENTS_OF_JOB } from '../scripts/monitoring-scenarios.ts';
import { withFreshDatabase } from '../src/database.ts';
import {
  formatHousekeeping,
  pruneOrphanArtifacts,
  pruneSentOutbox,
  pruneTerminalJobs,
  runHousekeeping,
  TEMP_FILE_GRACE_MS,
} from '../src/housekeeping.ts';
import { admitTraced } from '../src/trace-context.ts';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const micros = (ms: number) => ms * 1000;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tasks-lab16-housekeeping-'));
});
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** An extra event of a job, as the recovery scanner's redispatch writes one. Parameters: [eventId, jobId, queueName]. */
const INSERT_EXTRA_EVENT = `INSERT INTO export_outbox (id, job_id, queue_name) VALUES (?, ?, ?)`;
const COUNT_EVENTS = `SELECT COUNT(*) AS n FROM export_outbox`;
const JOB_IDS = `SELECT id FROM export_jobs ORDER BY id`;
const COUNT_OF_JOB = {
  slots: `SELECT COUNT(*) AS n FROM export_schedule_slots WHERE job_id = ?`,
  deadLetters: `SELECT COUNT(*) AS n FROM export_dead_letters WHERE job_id = ?`,
  events: `SELECT COUNT(*) AS n FROM export_outbox WHERE job_id = ?`,
};

const submit = async (pool: Pool) => (await admitTraced(pool, [1, 2])).jobId;
const countOf = async (pool: Pool, sql: string, params: unknown[] = []) =>
  Number((await pool.query<RowDataPacket[]>(sql, params))[0][0]?.n);
const jobIds = async (pool: Pool) => (await pool.query<RowDataPacket[]>(JOB_IDS))[0].map((row) => String(row.id));
const eventIds = async (pool: Pool, jobId: string) =>
  (await pool.query<RowDataPacket[]>(EVENTS_OF_JOB, [jobId]))[0].map((row) => String(row.id));

/** A job with `extra` more events after its first; every event sent `sentAgoMs` ago. Returns [first, ...extras]. */
async function jobWithSentEvents(pool: Pool, extra: number, sentAgoMs: number): Promise<string[]> {
  const jobId = await submit(pool);
  for (let i = 0; i < extra; i += 1) await pool.query(INSERT_EXTRA_EVENT, [randomUUID(), jobId, FAST_QUEUE]);
  await pool.query(MARK_EVENTS_SENT_AGO, [micros(sentAgoMs), jobId]);
  return eventIds(pool, jobId);
}

/** Fails the jobs the way the scanner does: a 50 ms lease, one attempt, a recovery batch. */
async function failJobs(pool: Pool, ids: string[]): Promise<void> {
  for (const id of ids) expect((await claimOrWait(pool, id, { leaseMs: 50, maxAttempts: 1 })).outcome).toBe('claimed');
  await sleep(120);
  await recoverBatch(pool, { batch: 50, retryBackoffMs: 500, unclaimedThresholdMs: 60_000, maxAttempts: 1 });
}

async function scratchDir(): Promise<string> {
  const dir = join(root, randomBytes(4).toString('hex'));
  await mkdir(dir);
  return dir;
}

async function fileAged(dir: string, name: string, ageMs: number): Promise<void> {
  await writeFile(join(dir, name), '[]\n');
  const when = new Date(Date.now() - ageMs);
  await utimes(join(dir, name), when, when);
}

describe('pruneSentOutbox', () => {
  it("When sent events are older and younger than the retention, Then only the older go, never an unsent one, never a job's first [test:prune-respects-retention]", async () => {
    await withFreshDatabase('hkretention', async ({ pool }) => {
      const [oldFirst, oldSecond] = await jobWithSentEvents(pool, 1, 2 * HOUR_MS);
      const [, youngSecond] = await jobWithSentEvents(pool, 1, 30 * 60 * 1000);
      const unsentJob = await submit(pool); // its one event, unsent
      const result = await pruneSentOutbox(pool, { retentionMs: HOUR_MS, batch: 10 });
      expect(result.deleted).toBe(1);
      const [remaining] = await pool.query<RowDataPacket[]>(`SELECT id FROM export_outbox`);
      const ids = remaining.map((row) => String(row.id));
      expect(ids).not.toContain(oldSecond);
      expect(ids).toContain(oldFirst);
      expect(ids).toContain(youngSecond);
      expect(await eventIds(pool, unsentJob)).toHaveLength(1);
    });
  });

  it('When 5 events are prunable and a batch is 2, Then three short rounds delete all 5 [test:prune-in-batches]', async () => {
    await withFreshDatabase('hkbatches', async ({ pool }) => {
      const events = await jobWithSentEvents(pool, 5, 2 * DAY_MS);
      const result = await pruneSentOutbox(pool, { retentionMs: DAY_MS, batch: 2 });
      expect(result).toEqual({ deleted: 5, statements: 3 });
      expect(await eventIds(pool, (await jobIds(pool))[0]!)).toEqual([events[0]]);
      // Nothing left to do: a second pass deletes nothing.
      expect(await pruneSentOutbox(pool, { retentionMs: DAY_MS, batch: 2 })).toEqual({ deleted: 0, statements: 0 });
    });
  });
});

describe('pruneTerminalJobs', () => {
  it('When a cancelled scheduled job and a failed job are past the retention, Then they go with their events, slot and dead letter; queued and running jobs of any age stay [test:prune-terminal-with-dependents]', async () => {
    await withFreshDatabase('hkterminal', async ({ pool }) => {
      const scheduled = (await scheduleOnce(pool, `housekeeping-test:${randomBytes(3).toString('hex')}`, [1])).jobId;
      await requestCancel(pool, scheduled);
      const failed = await submit(pool);
      await failJobs(pool, [failed]);
      expect(await countOf(pool, COUNT_OF_JOB.deadLetters, [failed])).toBe(1);
      const queued = await submit(pool);
      const running = await submit(pool);
      expect((await claimOrWait(pool, running, { leaseMs: 30_000, maxAttempts: 3 })).outcome).toBe('claimed');
      await recoverBatch(pool, { batch: 50, retryBackoffMs: 500, unclaimedThresholdMs: 60_000, maxAttempts: 3 }); // the cancel
      for (const id of [scheduled, failed, queued, running]) await pool.query(AGE_JOB, [micros(40 * DAY_MS), id]);
      const result = await pruneTerminalJobs(pool, { retentionMs: 30 * DAY_MS, batch: 1 });
      expect(result.deleted).toBe(2);
      expect((await jobIds(pool)).sort()).toEqual([queued, running].sort());
      for (const id of [scheduled, failed]) {
        expect(await countOf(pool, COUNT_OF_JOB.events, [id])).toBe(0);
        expect(await countOf(pool, COUNT_OF_JOB.slots, [id])).toBe(0);
        expect(await countOf(pool, COUNT_OF_JOB.deadLetters, [id])).toBe(0);
      }
    });
  });

  it('When a failed job is replayed, Then it is kept while its replay lives, and both go in one run once the replay is over and old too [test:prune-keeps-replayed-source]', async () => {
    await withFreshDatabase('hkreplay', async ({ pool }) => {
      const original = await submit(pool);
      await failJobs(pool, [original]);
      const replay = (await replayJob(pool, original)).jobId;
      await pool.query(AGE_JOB, [micros(40 * DAY_MS), original]);
      expect((await pruneTerminalJobs(pool, { retentionMs: 30 * DAY_MS, batch: 10 })).deleted).toBe(0);
      expect(await jobIds(pool)).toContain(original);
      // The replay ends (cancelled) and ages: the chain goes, newest first, in one run.
      await requestCancel(pool, replay);
      await recoverBatch(pool, { batch: 50, retryBackoffMs: 500, unclaimedThresholdMs: 60_000, maxAttempts: 3 });
      await pool.query(AGE_JOB, [micros(40 * DAY_MS), replay]);
      expect((await pruneTerminalJobs(pool, { retentionMs: 30 * DAY_MS, batch: 10 })).deleted).toBe(2);
      expect(await jobIds(pool)).toEqual([]);
      expect(await countOf(pool, COUNT_EVENTS)).toBe(0);
    });
  });
});

describe('pruneOrphanArtifacts', () => {
  it('When an unreferenced file is younger than the grace, Then it stays; once older, it goes; a referenced file, a symlink and a foreign file stay [test:orphan-grace-protects-fresh-file]', async () => {
    await withFreshDatabase('hkorphans', async ({ pool }) => {
      const dir = await scratchDir();
      const jobId = await submit(pool);
      const claim = await claimOrWait(pool, jobId, { leaseMs: 30_000, maxAttempts: 3 });
      if (claim.outcome !== 'claimed') throw new Error('no claim');
      // The worker has written its file; its finish has not run yet: unreferenced, and normal.
      const writing = artifactName(jobId, claim.job.token);
      await fileAged(dir, writing, 0);
      const zombie = artifactName(jobId, randomUUID());
      await fileAged(dir, zombie, 2 * DAY_MS);
      const interrupted = `${artifactName(jobId, randomUUID())}.tmp-a1b2c3`;
      await fileAged(dir, interrupted, 2 * DAY_MS);
      await fileAged(dir, 'notes.txt', 2 * DAY_MS);
      const link = artifactName(randomUUID(), randomUUID());
      await symlink(join(dir, 'notes.txt'), join(dir, link));
      const first = await pruneOrphanArtifacts(pool, dir, { graceMs: DAY_MS });
      expect(first).toMatchObject({ deleted: 2, temporaryDeleted: 1, keptYoung: 1, keptReferenced: 0, ignored: 2 });
      expect((await readdir(dir)).sort()).toEqual([writing, 'notes.txt', link].sort());

      // Published: the same file is now referenced, however old it gets.
      expect(await finishAndLeave(pool, jobId, claim.job.token, writing)).toBe(true);
      await fileAged(dir, writing, 40 * DAY_MS);
      const second = await pruneOrphanArtifacts(pool, dir, { graceMs: DAY_MS });
      expect(second).toMatchObject({ deleted: 0, keptReferenced: 1 });
      // Later clocks: a day and a minute after the file was written, an unreferenced twin goes.
      const twin = artifactName(jobId, randomUUID());
      await fileAged(dir, twin, 0);
      const later = await pruneOrphanArtifacts(pool, dir, { graceMs: DAY_MS, now: () => Date.now() + DAY_MS + 60_000 });
      expect(later).toMatchObject({ deleted: 1, keptReferenced: 1 });
      expect(await readdir(dir)).not.toContain(twin);
    });
  });

  it("When a killed writer's temp file is older than the temp grace and a live worker is writing another, Then only the old one goes; the finished artifact stays, and the live write still completes [test:temp-file-grace-spares-live-writer]", async () => {
    await withFreshDatabase('hktempfiles', async ({ pool }) => {
      const dir = await scratchDir();
      // A finished export: written, published, and old.
      const doneId = await submit(pool);
      const done = await claimOrWait(pool, doneId, { leaseMs: 30_000, maxAttempts: 3 });
      if (done.outcome !== 'claimed') throw new Error('no claim');
      const finished = artifactName(doneId, done.job.token);
      await writeArtifactInChunks(dir, finished, done.job.snapshot, { chunkRows: 1, canContinue: async () => true });
      expect(await finishAndLeave(pool, doneId, done.job.token, finished)).toBe(true);
      await fileAged(dir, finished, 40 * DAY_MS);
      // A worker killed while writing, two hours ago: its temp file was never renamed nor removed.
      const killed = `${artifactName(randomUUID(), randomUUID())}.tmp-${randomBytes(6).toString('hex')}`;
      await fileAged(dir, killed, 2 * HOUR_MS);
      // A live worker, paused between its first and second chunk: its temp file is on disk now.
      const liveId = await submit(pool);
      const live = await claimOrWait(pool, liveId, { leaseMs: 30_000, maxAttempts: 3 });
      if (live.outcome !== 'claimed') throw new Error('no claim');
      let resume!: () => void;
      const paused = new Promise<void>((resolve) => (resume = resolve));
      let atSecondChunk!: () => void;
      const reachedSecondChunk = new Promise<void>((resolve) => (atSecondChunk = resolve));
      const writing = writeArtifactInChunks(dir, artifactName(liveId, live.job.token), live.job.snapshot, {
        chunkRows: 1,
        canContinue: async () => true,
        beforeChunk: async (index) => {
          if (index !== 1) return;
          atSecondChunk();
          await paused;
        },
      });
      await reachedSecondChunk;
      const liveTemp = (await readdir(dir)).find(
        (name) => name.startsWith(artifactName(liveId, live.job.token)) && name.includes('.tmp-'),
      );
      expect(liveTemp).toBeDefined();

      // The default temp grace (an hour): the 2-hour-old temp file goes, the live one stays.
      expect(TEMP_FILE_GRACE_MS).toBe(HOUR_MS);
      const report = await runHousekeeping(pool, dir, {
        outboxRetentionMs: DAY_MS,
        jobRetentionMs: 30 * DAY_MS,
        artifactGraceMs: DAY_MS,
        batch: 10,
      });
      expect(report.artifacts).toMatchObject({ deleted: 1, temporaryDeleted: 1, keptReferenced: 1, keptYoung: 1 });
      expect((await readdir(dir)).sort()).toEqual([finished, liveTemp!].sort());
      expect(formatHousekeeping(report)).toContain('temp files of interrupted writes deleted: 1');

      // The live writer goes on, unharmed: its rename finds its temp file.
      resume();
      expect(await writing).toMatchObject({ completed: true });
      expect(JSON.parse(await readFile(join(dir, artifactName(liveId, live.job.token)), 'utf8'))).toEqual(
        live.job.snapshot,
      );
      // A shorter temp grace is an option: a 10-minute one keeps a 5-minute-old temp file, not a 20-minute-old one.
      const five = `${artifactName(randomUUID(), randomUUID())}.tmp-aaaaaa`;
      const twenty = `${artifactName(randomUUID(), randomUUID())}.tmp-bbbbbb`;
      await fileAged(dir, five, 5 * 60 * 1000);
      await fileAged(dir, twenty, 20 * 60 * 1000);
      expect(await pruneOrphanArtifacts(pool, dir, { graceMs: DAY_MS, tempGraceMs: 10 * 60 * 1000 })).toMatchObject({
        temporaryDeleted: 1,
      });
      expect(await readdir(dir)).toContain(five);
      expect(await readdir(dir)).not.toContain(twenty);
    });
  });

  it('When the artifacts folder does not exist yet, Then the prune finds nothing and does not fail [test:orphan-missing-folder]', async () => {
    await withFreshDatabase('hknofolder', async ({ pool }) => {
      const report = await runHousekeeping(pool, join(root, 'never-created'), {
        outboxRetentionMs: DAY_MS,
        jobRetentionMs: DAY_MS,
        artifactGraceMs: DAY_MS,
        batch: 10,
      });
      expect(report).toMatchObject({ outboxDeleted: 0, jobsDeleted: 0, artifactsDeleted: 0 });
    });
  });
});
