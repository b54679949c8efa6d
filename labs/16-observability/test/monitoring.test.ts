// The course's six monitoring queries (src/monitoring.ts) against a fresh database of this
// file's own: the empty case (every age null, never 0), the ages that must be measured from
// the right column and to the microsecond, the expired lease, the 20 oldest active jobs.
// Rows are brought to their states by the real parts; back-dated times are named UPDATEs.
import type { ResultSetHeader } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_STATES } from '@tasks-lab/01-state-machine';
import { EXPIRE_LEASE } from '@tasks-lab/11-mysql-leases';
import { claimOrWait, MARK_EVENTS_SENT_AGO, MARK_JOB_DISPATCHED_AGO } from '@tasks-lab/15-recovery';
import { MARK_ALL_UNSENT_SENT, MARK_UNSENT_CREATED_AGO } from '../scripts/monitoring-scenarios.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { OUTBOX_ALERT } from '../src/alerts.ts';
import {
  ageSeconds,
  formatMonitoring,
  OLDEST_ACTIVE_LIMIT,
  readMonitoring,
  readMonitoringReport,
} from '../src/monitoring.ts';
import { MONITORING_DEFAULTS } from '../src/monitoring-targets.ts';
import { admitTraced } from '../src/trace-context.ts';

let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase('monitoring');
});
afterAll(async () => {
  await db?.drop();
});

const submit = async () => (await admitTraced(db.pool, [1, 2])).jobId;
const micros = (seconds: number) => seconds * 1_000_000;

describe('readMonitoring', () => {
  it('When nothing was ever submitted, Then every status is listed with 0 and every age is null, not 0 [test:null-age-not-zero]', async () => {
    const snapshot = await readMonitoring(db.pool);
    expect(Object.keys(snapshot.statusCounts).sort()).toEqual([...JOB_STATES].sort());
    expect(Object.values(snapshot.statusCounts).every((n) => n === 0)).toBe(true);
    expect(snapshot.unpublished).toEqual({ count: 0, oldestAgeSeconds: null });
    expect(snapshot.queuedWithoutPending).toEqual({ count: 0, oldestDispatchAgeSeconds: null });
    expect(snapshot.expiredLeases).toBe(0);
    expect(snapshot.failuresByReason).toEqual([]);
    expect(snapshot.oldestActive).toEqual([]);
    expect(formatMonitoring(snapshot).join('\n')).toMatch(/unsent events: 0, oldest none/);
    // The parser itself: NULL stays null; a real 0 stays 0; garbage is refused.
    expect(ageSeconds(null)).toBeNull();
    expect(ageSeconds(undefined)).toBeNull();
    expect(ageSeconds('0.0000')).toBe(0);
    expect(ageSeconds('12.5000')).toBe(12.5);
    expect(() => ageSeconds('soon')).toThrow(/not a number/);
  });

  it('When an event was just committed, Then its age is measured in microseconds (above 0, below a few seconds) [test:monitoring-unsent-age-precise]', async () => {
    const jobId = await submit();
    const snapshot = await readMonitoring(db.pool);
    expect(snapshot.unpublished.count).toBe(1);
    expect(snapshot.unpublished.oldestAgeSeconds).toBeGreaterThan(0);
    expect(snapshot.unpublished.oldestAgeSeconds).toBeLessThan(5);
    expect(snapshot.oldestActive.map((job) => job.id)).toEqual([jobId]);
    await db.pool.query(MARK_ALL_UNSENT_SENT);
  });

  it('When a queued job created now was last dispatched 300 s ago, Then its dispatch age is 300 s (COALESCE prefers the dispatch) and it is not "lost" by itself [test:monitoring-dispatch-age-uses-last-dispatch]', async () => {
    const before = (await readMonitoring(db.pool)).queuedWithoutPending.count;
    const jobId = await submit();
    await db.pool.query(MARK_EVENTS_SENT_AGO, [micros(300), jobId]);
    await db.pool.query(MARK_JOB_DISPATCHED_AGO, [micros(300), micros(300), micros(300), jobId]);
    const snapshot = await readMonitoring(db.pool);
    expect(snapshot.queuedWithoutPending.count).toBe(before + 1);
    expect(snapshot.queuedWithoutPending.oldestDispatchAgeSeconds).toBeGreaterThanOrEqual(300);
    expect(snapshot.queuedWithoutPending.oldestDispatchAgeSeconds).toBeLessThan(330);
    const listed = snapshot.oldestActive.find((job) => job.id === jobId);
    expect(listed?.lastDispatchedAt).not.toBeNull();
    expect(Date.now() - Date.parse(listed!.lastDispatchedAt!)).toBeGreaterThanOrEqual(299_000);
  });

  it("When a running job's lease passes, Then it counts as one expired lease [test:monitoring-expired-lease]", async () => {
    const jobId = await submit();
    // A 30 s lease, then back-dated: with a short lease that passes for real, a slow machine
    // (CI runs ten labs on two cores) could let it pass before the "not expired yet" read.
    // Lesson 16's verify lets a 100 ms lease pass for real (putRowsInKnownStates).
    const attempt = await claimOrWait(db.pool, jobId, { leaseMs: 30_000, maxAttempts: 3 });
    expect(attempt.outcome).toBe('claimed');
    expect((await readMonitoring(db.pool)).expiredLeases).toBe(0);
    const [passed] = await db.pool.query<ResultSetHeader>(EXPIRE_LEASE, [jobId]);
    expect(passed.affectedRows).toBe(1);
    const snapshot = await readMonitoring(db.pool);
    expect(snapshot.expiredLeases).toBe(1);
    expect(snapshot.statusCounts.running).toBe(1);
  });

  it(`When more than ${OLDEST_ACTIVE_LIMIT} jobs are active, Then the ${OLDEST_ACTIVE_LIMIT} oldest are listed, oldest first [test:monitoring-oldest-active-listed]`, async () => {
    const ids = [];
    for (let i = 0; i < OLDEST_ACTIVE_LIMIT + 2; i += 1) ids.push(await submit());
    const snapshot = await readMonitoring(db.pool);
    expect(snapshot.oldestActive).toHaveLength(OLDEST_ACTIVE_LIMIT);
    // The earlier tests' three active jobs are older than these.
    const listed = snapshot.oldestActive.map((job) => job.id);
    expect(listed.slice(3)).toEqual(ids.slice(0, OLDEST_ACTIVE_LIMIT - 3));
    expect(snapshot.oldestActive.every((job) => job.status === 'queued' || job.status === 'running')).toBe(true);
  });

  it('When the report is read with an event unsent for 61 s, Then it holds the six answers, the outbox alert firing at 61 s of 60, and both latency stages per queue [test:monitoring-report-alert-and-latency]', async () => {
    await db.pool.query(MARK_ALL_UNSENT_SENT);
    const quiet = await readMonitoringReport(db.pool, MONITORING_DEFAULTS);
    expect(quiet.alerts).toEqual([{ alert: OUTBOX_ALERT, firing: false, valueSeconds: null, thresholdSeconds: 60 }]);
    const jobId = await submit();
    await db.pool.query(MARK_UNSENT_CREATED_AGO, [micros(61), micros(61), jobId]);
    const report = await readMonitoringReport(db.pool, MONITORING_DEFAULTS);
    expect(report.unpublished.count).toBe(1);
    expect(report.alerts[0]).toMatchObject({ alert: OUTBOX_ALERT, firing: true, thresholdSeconds: 60 });
    expect(report.alerts[0]?.valueSeconds).toBeGreaterThanOrEqual(61);
    expect(report.latency.stages.map((stage) => [stage.stage, stage.targetSeconds])).toEqual([
      ['start', 60],
      ['finish', 600],
    ]);
    expect(report.latency.stages[0]?.queues.map((q) => q.queue)).toEqual(['exports.fast', 'exports.bulk']);
  });
});
