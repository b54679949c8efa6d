// confirmAndRecordDispatch against the real database (a fresh one for this file): sent_at and
// last_dispatched_at are written together, an old token changes neither, and the job row is
// locked before the outbox row. Then lesson 12's publisher with lesson 15's confirmation.
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultPoints, faultRule, FAULTS_ENV, sleep, waitFor, withResources } from '@tasks-lab/lab-kit';
import { claimEvents, publisherFaults, readEvent, startPublisher } from '@tasks-lab/12-outbox';
import { admitExport, scratchQueuePrefix } from '@tasks-lab/13-admission';
import { CONFIRM_FAULT_POINTS, confirmAndRecordDispatch, dispatchRecordingParts } from '../src/confirm.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { QUEUE_PREFIX, readShortRecoveryOptions } from '../src/options.ts';

const timings = readShortRecoveryOptions();

let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase('confirm', { settings: timings, connectionLimit: 8 });
}, 60_000);
afterAll(() => db?.drop());

const pool = (): Pool => db.pool;

// The tests' own statements (named, parameterised).
/** When the job was last dispatched. Parameters: [id]. */
const READ_DISPATCHED = 'SELECT last_dispatched_at FROM export_jobs WHERE id = ?';
/** Is the job's row free? A SKIP LOCKED probe: 0 rows while another transaction holds it. Parameters: [id]. */
const PROBE_JOB = 'SELECT id FROM export_jobs WHERE id = ? FOR UPDATE SKIP LOCKED';
/** Is the event's row free? Parameters: [id]. */
const PROBE_EVENT = 'SELECT id FROM export_outbox WHERE id = ? FOR UPDATE SKIP LOCKED';

async function dispatchedAt(jobId: string): Promise<Date | null> {
  const [rows] = await pool().query<RowDataPacket[]>(READ_DISPATCHED, [jobId]);
  return (rows[0]?.last_dispatched_at as Date | null) ?? null;
}

/** Runs one probe in a transaction of its own (rolled back): true = the row was free to lock. */
async function free(probe: string, id: string): Promise<boolean> {
  const tx = await pool().getConnection();
  try {
    await tx.beginTransaction();
    const [rows] = await tx.query<RowDataPacket[]>(probe, [id]);
    return rows.length === 1;
  } finally {
    await tx.rollback().catch(() => {});
    tx.release();
  }
}

/** A job and its event, claimed by a publisher (lesson 12's claim: a real token). */
async function claimedEvent(claimMs = 30_000) {
  const admitted = await admitExport(pool(), [1], { rules: timings, deadlineMs: timings.deadlineMs });
  const events = await claimEvents(pool(), { batch: 100, claimMs });
  const event = events.find((e) => e.eventId === admitted.eventId);
  if (!event) throw new Error('setup: the new event was not claimed');
  return event;
}

describe('confirmAndRecordDispatch', () => {
  it('When the holder confirms, Then sent_at and last_dispatched_at are set together [test:confirm-sets-sent-and-dispatched]', async () => {
    const event = await claimedEvent();
    expect(await dispatchedAt(event.jobId)).toBeNull();
    expect(await confirmAndRecordDispatch(pool(), event.eventId, event.token, event.jobId)).toBe(true);
    const sentAt = (await readEvent(pool(), event.eventId))?.sentAt;
    const dispatched = await dispatchedAt(event.jobId);
    expect(sentAt).toBeInstanceOf(Date);
    expect(dispatched).toBeInstanceOf(Date);
    // Two statements of one transaction: NOW(6) differs by the microseconds between them.
    expect(Math.abs(dispatched!.getTime() - sentAt!.getTime())).toBeLessThan(1000);
    // Confirmed once: a second confirmation finds it sent and changes nothing.
    expect(await confirmAndRecordDispatch(pool(), event.eventId, event.token, event.jobId)).toBe(false);
    expect(await dispatchedAt(event.jobId)).toEqual(dispatched);
  });

  it('When an old token confirms (its claim passed and another publisher claimed the event), Then neither sent_at nor last_dispatched_at changes [test:confirm-old-token-changes-nothing]', async () => {
    const old = await claimedEvent(200);
    await sleep(300);
    const again = (await claimEvents(pool(), { batch: 100, claimMs: 30_000 })).find((e) => e.eventId === old.eventId);
    expect(again?.token).toBeDefined();
    expect(again?.token).not.toBe(old.token);
    expect(await confirmAndRecordDispatch(pool(), old.eventId, old.token, old.jobId)).toBe(false);
    expect((await readEvent(pool(), old.eventId))?.sentAt).toBeNull();
    expect(await dispatchedAt(old.jobId)).toBeNull();
    // The current holder still confirms.
    expect(await confirmAndRecordDispatch(pool(), again!.eventId, again!.token, again!.jobId)).toBe(true);
  });

  it('When the event is confirmed for another job, Then nothing changes on either job [test:confirm-event-of-its-own-job]', async () => {
    const event = await claimedEvent();
    const other = (await admitExport(pool(), [2], { rules: timings, deadlineMs: timings.deadlineMs })).jobId;
    expect(await confirmAndRecordDispatch(pool(), event.eventId, event.token, other)).toBe(false);
    expect((await readEvent(pool(), event.eventId))?.sentAt).toBeNull();
    expect(await dispatchedAt(other)).toBeNull();
    expect(await dispatchedAt(event.jobId)).toBeNull();
  });

  it('When the confirmation is held at its fault point, Then the job row is locked and the outbox row not yet: job first, then outbox [test:confirm-lock-order-job-then-outbox]', async () => {
    const event = await claimedEvent();
    // A 4 s hold, not 800 ms: a slow machine could let a short hold end before the probes see it.
    // The probes use SKIP LOCKED (no lock wait), and the event's claim lasts 30 s: both outlast it.
    const faults = faultPoints(CONFIRM_FAULT_POINTS, {
      [FAULTS_ENV]: faultRule('confirm-holding-job-lock', 'delay-4000', 'once'),
    });
    const confirming = confirmAndRecordDispatch(pool(), event.eventId, event.token, event.jobId, faults);
    await waitFor('the confirmation to lock the job row', async () => !(await free(PROBE_JOB, event.jobId)), {
      timeoutMs: 3000,
      intervalMs: 10,
    });
    expect(await free(PROBE_EVENT, event.eventId), 'the outbox row must not be locked before the job row').toBe(true);
    expect(await confirming).toBe(true);
    expect(await free(PROBE_JOB, event.jobId)).toBe(true);
  });
});

describe("lesson 12's publisher with lesson 15's confirmation", () => {
  it("When the publisher sends an event, Then its confirmation records the job's dispatch time [test:publisher-records-dispatch]", async () => {
    await withResources(undefined, async (res) => {
      const prefix = scratchQueuePrefix(res, QUEUE_PREFIX);
      const admitted = await admitExport(pool(), [3], { rules: timings, deadlineMs: timings.deadlineMs });
      const publisher = res.add(
        await startPublisher({
          pool: pool(),
          timings,
          prefix,
          listen: false,
          faults: publisherFaults({}),
          parts: dispatchRecordingParts(),
          report: () => {},
        }),
        (p) => p.close(),
      );
      publisher.nudge();
      const dispatched = await waitFor(
        'the dispatch time',
        () => dispatchedAt(admitted.jobId).then((d) => d ?? false),
        { timeoutMs: 5000, intervalMs: 50 },
      );
      expect(dispatched).toBeInstanceOf(Date);
      expect((await readEvent(pool(), admitted.eventId))?.sentAt).toBeInstanceOf(Date);
      // The confirm commits a turn of the event loop before the publisher counts it.
      await waitFor('the publisher to count the confirm', () => publisher.stats().confirmed >= 1, {
        timeoutMs: 5000,
        intervalMs: 20,
      });
    });
  });
});
