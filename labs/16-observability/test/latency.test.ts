// The latency targets (src/latency.ts) against a fresh database of each test's own: the first
// claim recorded once and at the claim's instant, the nearest-rank percentiles per queue, the
// window and the row bound, and a queue where nothing starts that is still over target because
// of the job that waits. Jobs go through the real parts (admission, claim, finish); times move
// by named UPDATEs, never by waiting.
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { CLAIM, EXPIRE_LEASE, artifactName, seedProducts } from '@tasks-lab/11-mysql-leases';
import { BULK_QUEUE, FAST_QUEUE, finishAndLeave } from '@tasks-lab/13-admission';
import { claimOrWait, recoverBatch } from '@tasks-lab/15-recovery';
import { recoveryBudgetSeconds } from '../src/matrix/budget.ts';
import { MOVE_SUBMIT_AND_FIRST_CLAIM_BACK } from '../scripts/monitoring-scenarios.ts';
import { withFreshDatabase } from '../src/database.ts';
import {
  CLAIM_RECORDING_FIRST,
  formatLatency,
  latencyVerdict,
  percentile,
  readLatency,
  recordingFirstClaim,
  type LatencyReport,
} from '../src/latency.ts';
import { COURSE_TIMINGS } from '../src/options.ts';
import { MONITORING_DEFAULTS, readMonitoringSettings } from '../src/monitoring-targets.ts';
import { admitTraced } from '../src/trace-context.ts';

const claim = recordingFirstClaim();
const LEASE = { leaseMs: 30_000, maxAttempts: 3 };

/** The job's submit and first claim. Rows: 0 or 1. Parameters: [jobId]. */
const TIMES_OF_JOB = `
  SELECT created_at, first_claimed_at, TIMESTAMPADD(MICROSECOND, -?, lease_until) AS claimed_at
  FROM export_jobs WHERE id = ?`;
/** The whole job happened `?` µs earlier: submit, first claim and terminal instant. Parameters: [micros x3, jobId]. */
const MOVE_JOB_BACK = `
  UPDATE export_jobs
  SET created_at = TIMESTAMPADD(MICROSECOND, -?, created_at), first_claimed_at = TIMESTAMPADD(MICROSECOND, -?, first_claimed_at),
      updated_at = TIMESTAMPADD(MICROSECOND, -?, updated_at)
  WHERE id = ?`;
/** A job submitted `?` µs earlier than it was (it has not been claimed). Parameters: [micros, jobId]. */
const MOVE_SUBMIT_BACK = `UPDATE export_jobs SET created_at = TIMESTAMPADD(MICROSECOND, -?, created_at) WHERE id = ?`;

const micros = (seconds: number) => seconds * 1_000_000;
const BULK_PRODUCTS = Array.from({ length: 31 }, (_, i) => i + 1);

async function claimed(pool: Pool, jobId: string): Promise<string> {
  const attempt = await claim(pool, jobId, LEASE);
  if (attempt.outcome !== 'claimed') throw new Error(`claim of ${jobId}: ${attempt.outcome}`);
  return attempt.job.token;
}

/** Admitted, claimed, finished; `slowBySeconds` moves its submit and first claim back first. */
async function exportJob(pool: Pool, productIds: number[] = [1, 2], slowBySeconds = 0): Promise<string> {
  const { jobId } = await admitTraced(pool, productIds);
  const token = await claimed(pool, jobId);
  if (slowBySeconds > 0)
    await pool.query(MOVE_SUBMIT_AND_FIRST_CLAIM_BACK, [micros(slowBySeconds), micros(slowBySeconds), jobId]);
  expect(await finishAndLeave(pool, jobId, token, artifactName(jobId, token))).toBe(true);
  return jobId;
}

const queue = (report: LatencyReport, stage: 'start' | 'finish', name: string) =>
  report.stages.find((s) => s.stage === stage)!.queues.find((q) => q.queue === name)!;

describe('percentiles and verdicts', () => {
  it('When the percentiles of 10 durations are taken, Then they are nearest-rank: p50 the 5th, p95 and p99 the 10th; none of nothing [test:latency-nearest-rank]', () => {
    const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 100];
    expect(percentile(values, 0.5)).toBe(5);
    expect(percentile(values, 0.95)).toBe(100);
    expect(percentile(values, 0.99)).toBe(100);
    expect(percentile([7], 0.5)).toBe(7);
    expect(percentile([], 0.95)).toBeNull();
    const base = { queue: FAST_QUEUE, jobs: 10, p50: 5, p95: 100, p99: 100, waiting: 0, oldestWaitingSeconds: null };
    expect(latencyVerdict(base, 100)).toBe('within-target');
    expect(latencyVerdict(base, 99)).toBe('over-target');
    expect(latencyVerdict({ ...base, p95: 1, oldestWaitingSeconds: 120 }, 60)).toBe('over-target');
    expect(latencyVerdict({ ...base, jobs: 0, p50: null, p95: null, p99: null }, 60)).toBe('no-jobs');
  });

  it('When the course-scale defaults are read, Then the targets follow from the course: start = the unclaimed threshold, finish = the deadline, the alert above the publish budget [test:latency-targets-course-scale]', () => {
    expect(MONITORING_DEFAULTS).toMatchObject({
      unpublishedAlertMs: 60_000,
      startTargetMs: 60_000,
      finishTargetMs: 600_000,
    });
    expect(MONITORING_DEFAULTS.startTargetMs).toBe(COURSE_TIMINGS.unclaimedThresholdMs);
    expect(MONITORING_DEFAULTS.finishTargetMs).toBe(COURSE_TIMINGS.deadlineMs);
    // A healthy publisher that lost one send has sent it again within its recovery budget: no alert before then.
    expect(MONITORING_DEFAULTS.unpublishedAlertMs / 1000).toBeGreaterThan(
      recoveryBudgetSeconds('publish', COURSE_TIMINGS),
    );
    expect(MONITORING_DEFAULTS.latencyWindowMs).toBeGreaterThan(MONITORING_DEFAULTS.finishTargetMs);
    expect(readMonitoringSettings({ env: { FINISH_TARGET_MS: '120000' } }).finishTargetMs).toBe(120_000);
    expect(() => readMonitoringSettings({ env: { START_TARGET_MS: 'soon' } })).toThrow(
      /START_TARGET_MS must be a whole number of milliseconds/,
    );
  });
});

describe('the first claim', () => {
  it('When a job is claimed through recordingFirstClaim, Then first_claimed_at is the claim instant; a second claim after its lease expired keeps the first [test:first-claim-recorded-once]', async () => {
    await withFreshDatabase('latclaim', async ({ pool }) => {
      const { jobId } = await admitTraced(pool, [1, 2]);
      await claimed(pool, jobId);
      const [[first]] = await pool.query<RowDataPacket[]>(TIMES_OF_JOB, [micros(30), jobId]);
      expect(first?.first_claimed_at).toEqual(first?.claimed_at);
      expect((first!.first_claimed_at as Date).getTime()).toBeGreaterThanOrEqual((first!.created_at as Date).getTime());
      // The lease passes (named UPDATE), the scanner requeues it, a second claim wins.
      await pool.query(EXPIRE_LEASE, [jobId]);
      await recoverBatch(pool, { batch: 50, retryBackoffMs: 0, unclaimedThresholdMs: 60_000, maxAttempts: 3 });
      await claimed(pool, jobId);
      const [[second]] = await pool.query<RowDataPacket[]>(TIMES_OF_JOB, [micros(30), jobId]);
      expect(second?.first_claimed_at).toEqual(first?.first_claimed_at);
      expect((second!.claimed_at as Date).getTime()).toBeGreaterThan((first!.claimed_at as Date).getTime());
    });
  });

  it("When the recording claim is read beside lesson 11's CLAIM, Then it is CLAIM word for word with the one assignment added, and the three-step form records the first claim too [test:claim-recording-first-is-lesson-11s]", async () => {
    const words = (sql: string) => sql.replace(/\s+/g, ' ').trim();
    const added = ', first_claimed_at = COALESCE(first_claimed_at, NOW(6))';
    expect(CLAIM_RECORDING_FIRST).toContain('first_claimed_at = COALESCE');
    expect(words(CLAIM_RECORDING_FIRST).replace(added, '')).toBe(words(CLAIM));
    await withFreshDatabase('latthree', async ({ pool }) => {
      const { jobId } = await admitTraced(pool, [1]);
      expect((await recordingFirstClaim(claimOrWait)(pool, jobId, LEASE)).outcome).toBe('claimed');
      const [[row]] = await pool.query<RowDataPacket[]>(TIMES_OF_JOB, [micros(30), jobId]);
      expect(row?.first_claimed_at).toEqual(row?.claimed_at);
    });
  });

  it("When lesson 15's claim is used without the recording, Then the job has no first claim: the latency counts only what the workers record [test:first-claim-only-recorded]", async () => {
    await withFreshDatabase('latplain', async ({ pool }) => {
      const { jobId } = await admitTraced(pool, [1]);
      expect((await claimOrWait(pool, jobId, LEASE)).outcome).toBe('claimed');
      const [[row]] = await pool.query<RowDataPacket[]>(TIMES_OF_JOB, [micros(30), jobId]);
      expect(row?.first_claimed_at).toBeNull();
      expect(queue(await readLatency(pool, MONITORING_DEFAULTS), 'start', FAST_QUEUE).jobs).toBe(0);
    });
  });
});

describe('readLatency', () => {
  it('When nothing was submitted, Then both queues of both stages say no-jobs, with null percentiles [test:latency-no-jobs]', async () => {
    await withFreshDatabase('latempty', async ({ pool }) => {
      const report = await readLatency(pool, MONITORING_DEFAULTS);
      expect(report.windowSeconds).toBe(900);
      expect(report.stages.map((s) => [s.stage, s.targetSeconds, s.truncated])).toEqual([
        ['start', 60, false],
        ['finish', 600, false],
      ]);
      for (const stage of report.stages) {
        expect(stage.queues.map((q) => q.queue)).toEqual([FAST_QUEUE, BULK_QUEUE]);
        for (const q of stage.queues)
          expect(q).toMatchObject({
            jobs: 0,
            p50: null,
            p95: null,
            p99: null,
            waiting: 0,
            oldestWaitingSeconds: null,
            verdict: 'no-jobs',
          });
      }
    });
  });

  it("When one of ten exports.fast jobs took 12 minutes, Then that queue's finish p95 and p99 are that job, its p50 is not, it is over target; exports.bulk is within [test:latency-slow-job-over-target]", async () => {
    await withFreshDatabase('latslow', async ({ pool }) => {
      await seedProducts(pool, BULK_PRODUCTS.length);
      for (let i = 0; i < 9; i += 1) await exportJob(pool);
      await exportJob(pool, BULK_PRODUCTS);
      await exportJob(pool, [1, 2], 720);
      const report = await readLatency(pool, MONITORING_DEFAULTS);
      const fastFinish = queue(report, 'finish', FAST_QUEUE);
      expect(fastFinish.jobs).toBe(10);
      expect(fastFinish.p95).toBeGreaterThanOrEqual(720);
      expect(fastFinish.p99).toBe(fastFinish.p95);
      expect(fastFinish.p50).toBeLessThan(5);
      expect(fastFinish.verdict).toBe('over-target');
      // It was claimed at once: its start is as prompt as the others'.
      expect(queue(report, 'start', FAST_QUEUE)).toMatchObject({ jobs: 10, verdict: 'within-target' });
      expect(queue(report, 'finish', BULK_QUEUE)).toMatchObject({ jobs: 1, verdict: 'within-target' });
      expect(formatLatency(report).join('\n')).toMatch(
        /finish \(submit -> terminal state, target 600 s\) exports\.fast: 10 jobs, .*over-target/,
      );
    });
  });

  it('When a queued job has waited 2 minutes for its first claim and nothing else happened, Then start is over target through the waiting job alone [test:latency-waiting-job-over-target]', async () => {
    await withFreshDatabase('latwait', async ({ pool }) => {
      const { jobId } = await admitTraced(pool, [1]);
      await pool.query(MOVE_SUBMIT_BACK, [micros(120), jobId]);
      const report = await readLatency(pool, MONITORING_DEFAULTS);
      const start = queue(report, 'start', FAST_QUEUE);
      expect(start).toMatchObject({ jobs: 0, p95: null, waiting: 1, verdict: 'over-target' });
      expect(start.oldestWaitingSeconds).toBeGreaterThanOrEqual(120);
      // Not terminal either, but 2 minutes are within the 10-minute finish target.
      expect(queue(report, 'finish', FAST_QUEUE)).toMatchObject({ jobs: 0, waiting: 1, verdict: 'within-target' });
      expect(queue(report, 'start', BULK_QUEUE).verdict).toBe('no-jobs');
    });
  });

  it('When a job finished before the window, Then neither stage counts it; the row limit bounds the read and says so [test:latency-window-and-limit]', async () => {
    await withFreshDatabase('latwindow', async ({ pool }) => {
      const old = await exportJob(pool);
      await pool.query(MOVE_JOB_BACK, [micros(3600), micros(3600), micros(3600), old]);
      expect(queue(await readLatency(pool, MONITORING_DEFAULTS), 'finish', FAST_QUEUE).jobs).toBe(0);
      for (let i = 0; i < 12; i += 1) await exportJob(pool);
      const bounded = await readLatency(pool, { ...MONITORING_DEFAULTS, latencyRowLimit: 10 });
      for (const stage of bounded.stages) {
        expect(stage.truncated).toBe(true);
        expect(stage.queues.find((q) => q.queue === FAST_QUEUE)?.jobs).toBe(10);
      }
      const whole = await readLatency(pool, MONITORING_DEFAULTS);
      expect(whole.stages.map((s) => [s.truncated, queue(whole, s.stage, FAST_QUEUE).jobs])).toEqual([
        [false, 12],
        [false, 12],
      ]);
    });
  });
});
