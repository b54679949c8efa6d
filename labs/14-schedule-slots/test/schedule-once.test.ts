// scheduleOnce against the real database (a fresh one for this file): one job per slot,
// called one after another and all at once, the next minute's slot, a full service, where
// the export goes, and the admission gate's counter. Every test names its slots under a
// prefix of its own (the course's `drill:<uuid>:`), so the tests do not share a slot.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvent } from '@tasks-lab/12-outbox';
import { readGateCounter } from '@tasks-lab/13-admission';
import { countRows, rowsAdded } from '../scripts/slot-scenarios.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { jobOfSlot, scheduleOnce, type ScheduleResult } from '../src/schedule-once.ts';
import { executionSlot } from '../src/slot-keys.ts';

let db: FreshDatabase;
beforeAll(async () => {
  // More connections than the concurrent test's calls: they reach the database together.
  db = await freshDatabase('schedule', { connectionLimit: 15 });
}, 60_000);
afterAll(() => db?.drop());

/** The course's two handling times, one second either side of 10:01:00 UTC. */
const T1 = '2026-01-01T10:00:59Z';
const T2 = '2026-01-01T10:01:01Z';
/** A slot prefix of one test's own, as the course's drill makes one per run. */
const drill = () => `drill:${randomUUID()}:`;
const PRODUCTS = [1, 2];

describe('scheduleOnce', () => {
  it('When the same slot is scheduled twice, Then the first call makes one job, slot and event, and the second answers already-scheduled with that job and writes nothing [test:schedule-same-slot-one-job]', async () => {
    const slotKey = drill() + executionSlot(T1);
    const before = await countRows(db.pool);
    const first = await scheduleOnce(db.pool, slotKey, PRODUCTS);
    const afterFirst = await countRows(db.pool);
    const second = await scheduleOnce(db.pool, slotKey, PRODUCTS);
    expect(first).toMatchObject({
      status: 'scheduled',
      slotKey,
      jobId: expect.any(String),
      eventId: expect.any(String),
    });
    expect(second).toEqual({ status: 'already-scheduled', slotKey, jobId: first.jobId });
    expect(rowsAdded(before, afterFirst)).toEqual({ jobs: 1, slots: 1, events: 1, gate: 1 });
    expect(await countRows(db.pool)).toEqual(afterFirst);
    expect(await jobOfSlot(db.pool, slotKey)).toBe(first.jobId);
  });

  it('When the next minute is scheduled, Then it is a new slot with a second, different job [test:schedule-next-minute-new-job]', async () => {
    const prefix = drill();
    const first = await scheduleOnce(db.pool, prefix + executionSlot(T1), PRODUCTS);
    const before = await countRows(db.pool);
    const later = await scheduleOnce(db.pool, prefix + executionSlot(T2), PRODUCTS);
    expect(later).toMatchObject({ status: 'scheduled', slotKey: `${prefix}shop-export:20260101T1001` });
    expect(later.jobId).not.toBe(first.jobId);
    expect(rowsAdded(before, await countRows(db.pool))).toEqual({ jobs: 1, slots: 1, events: 1, gate: 1 });
  });

  it('When 10 calls for one new slot run at once, Then exactly one is scheduled, nine answer already-scheduled with its job, and one job, slot and event are added [test:schedule-concurrent-one-job]', async () => {
    const slotKey = drill() + executionSlot(T1);
    const before = await countRows(db.pool);
    const results: ScheduleResult[] = await Promise.all(
      Array.from({ length: 10 }, () => scheduleOnce(db.pool, slotKey, PRODUCTS)),
    );
    const scheduled = results.filter((r) => r.status === 'scheduled');
    expect(scheduled).toHaveLength(1);
    expect(results.filter((r) => r.status === 'already-scheduled')).toHaveLength(9);
    expect(new Set(results.map((r) => r.jobId))).toEqual(new Set([scheduled[0]!.jobId]));
    expect(rowsAdded(before, await countRows(db.pool))).toEqual({ jobs: 1, slots: 1, events: 1, gate: 1 });
    expect(await jobOfSlot(db.pool, slotKey)).toBe(scheduled[0]!.jobId);
  });

  it('When the service is full, Then a taken slot still answers already-scheduled, and a new slot is refused with 503 capacity-exceeded and writes no job, slot or event [test:schedule-full-duplicate-vs-new]', async () => {
    const prefix = drill();
    const taken = await scheduleOnce(db.pool, prefix + executionSlot(T1), PRODUCTS);
    // Nobody runs a worker here: every job stays queued. A limit of exactly that many is full.
    const rules = { admissionLimit: await readGateCounter(db.pool) };
    const before = await countRows(db.pool);
    const duplicate = await scheduleOnce(db.pool, taken.slotKey, PRODUCTS, { rules });
    expect(duplicate).toEqual({ status: 'already-scheduled', slotKey: taken.slotKey, jobId: taken.jobId });
    const newSlot = prefix + executionSlot(T2);
    await expect(scheduleOnce(db.pool, newSlot, PRODUCTS, { rules })).rejects.toMatchObject({
      code: 'capacity-exceeded',
      status: 503,
      headers: { 'Retry-After': '5' },
    });
    expect(await countRows(db.pool)).toEqual(before);
    expect(await jobOfSlot(db.pool, newSlot)).toBeUndefined();
  });

  it('When a slot is scheduled, Then its outbox event names exports.bulk, even for an export small enough for exports.fast [test:schedule-event-on-bulk]', async () => {
    const scheduled = await scheduleOnce(db.pool, drill() + executionSlot(T1), [1]);
    if (scheduled.status !== 'scheduled') throw new Error(`expected a new slot, got ${scheduled.status}`);
    expect((await readEvent(db.pool, scheduled.eventId))?.queueName).toBe('exports.bulk');
  });

  it('When three new slots and one duplicate are scheduled, Then the gate counter goes up by exactly three, one per scheduled slot [test:schedule-gate-one-per-slot]', async () => {
    const prefix = drill();
    const gateBefore = await readGateCounter(db.pool);
    for (const minute of [
      '2026-01-01T10:00:00Z',
      '2026-01-01T10:01:00Z',
      '2026-01-01T10:02:00Z',
      '2026-01-01T10:02:30Z',
    ]) {
      await scheduleOnce(db.pool, prefix + executionSlot(minute), PRODUCTS);
    }
    expect((await readGateCounter(db.pool)) - gateBefore).toBe(3);
  });
});
