// Lesson 15's confirmation against the real database (a fresh one for this file), in both
// forms (the course's transaction per event, and one statement per round): sent_at and
// last_dispatched_at are written together, an old token changes neither, and the job row is
// locked before the outbox row. Then lesson 12's publisher with lesson 15's confirmation.
import { randomUUID } from 'node:crypto';
import type { Pool, PoolConnection, RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultPoints, faultRule, FAULTS_ENV, sleep, waitFor, withResources } from '@tasks-lab/lab-kit';
import { countingCalls } from '@tasks-lab/lab-kit/testing';
import {
  claimEvents,
  CONFIRM_FORMS,
  publisherFaults,
  readEvent,
  startPublisher,
  type ClaimedEvent,
} from '@tasks-lab/12-outbox';
import { admitExport, scratchQueuePrefix } from '@tasks-lab/13-admission';
import {
  CONFIRM_FAULT_POINTS,
  confirmAndRecordDispatch,
  confirmRoundAndRecordDispatch,
  dispatchRecordingParts,
} from '../src/confirm.ts';
import { freshDatabase, openJobsDatabase, type FreshDatabase } from '../src/database.ts';
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

/** One event's confirmation in either form: the course's transaction, or a round of one. */
const CONFIRM_OF_FORM = {
  'per-event': (event: ClaimedEvent) => confirmAndRecordDispatch(pool(), event.eventId, event.token, event.jobId),
  'per-round': async (event: ClaimedEvent) => (await confirmRoundAndRecordDispatch(pool(), [event])).has(event.eventId),
} as const;

describe.each(CONFIRM_FORMS)('the confirmation, %s', (form) => {
  const confirm = CONFIRM_OF_FORM[form];

  it(`When the holder confirms, Then sent_at and last_dispatched_at are set together [test:confirm-sets-sent-and-dispatched-${form}]`, async () => {
    const event = await claimedEvent();
    expect(await dispatchedAt(event.jobId)).toBeNull();
    expect(await confirm(event)).toBe(true);
    const sentAt = (await readEvent(pool(), event.eventId))?.sentAt;
    const dispatched = await dispatchedAt(event.jobId);
    expect(sentAt).toBeInstanceOf(Date);
    expect(dispatched).toBeInstanceOf(Date);
    // At most two statements of one transaction apart: NOW(6) differs by microseconds, if at all.
    expect(Math.abs(dispatched!.getTime() - sentAt!.getTime())).toBeLessThan(1000);
    // Confirmed once: a second confirmation finds it sent and changes nothing. What it answers
    // differs: the per-event form says "not mine any more" (the claim is gone); the round's
    // read-back names what is sent under its token, which this one is (a publisher confirms a round once).
    expect(await confirm(event)).toBe(form === 'per-round');
    expect(await dispatchedAt(event.jobId)).toEqual(dispatched);
    expect((await readEvent(pool(), event.eventId))?.sentAt).toEqual(sentAt);
  });

  it(`When an old token confirms (its claim passed and another publisher claimed the event), Then neither sent_at nor last_dispatched_at changes [test:confirm-old-token-changes-nothing-${form}]`, async () => {
    const old = await claimedEvent(200);
    await sleep(300);
    const again = (await claimEvents(pool(), { batch: 100, claimMs: 30_000 })).find((e) => e.eventId === old.eventId);
    expect(again?.token).toBeDefined();
    expect(again?.token).not.toBe(old.token);
    expect(await confirm(old)).toBe(false);
    expect((await readEvent(pool(), old.eventId))?.sentAt).toBeNull();
    expect(await dispatchedAt(old.jobId)).toBeNull();
    // The current holder still confirms.
    expect(await confirm(again!)).toBe(true);
  });

  it(`When the event is confirmed for another job, Then nothing changes on either job [test:confirm-event-of-its-own-job-${form}]`, async () => {
    const event = await claimedEvent();
    const other = (await admitExport(pool(), [2], { rules: timings, deadlineMs: timings.deadlineMs })).jobId;
    expect(await confirm({ ...event, jobId: other })).toBe(false);
    expect((await readEvent(pool(), event.eventId))?.sentAt).toBeNull();
    expect(await dispatchedAt(other)).toBeNull();
    expect(await dispatchedAt(event.jobId)).toBeNull();
  });
});

/** Another transaction's hold on an event row. Parameters: [id]. */
const HOLD_EVENT = 'SELECT id FROM export_outbox WHERE id = ? FOR UPDATE';
/** The lab's timings with a lock wait long enough to watch one (and the bounds above it, as the options require). */
const PATIENT = { ...timings, lockWaitSeconds: 20, statementTimeLimitMs: 25_000, queryTimeoutMs: 30_000 };

/** Three jobs with their events, claimed in one round (one token), as a publisher gets them. */
async function claimedRound(): Promise<ClaimedEvent[]> {
  const admitted = [];
  for (const product of [1, 2, 3])
    admitted.push(await admitExport(pool(), [product], { rules: timings, deadlineMs: timings.deadlineMs }));
  const ids = new Set(admitted.map((a) => a.eventId));
  const round = (await claimEvents(pool(), { batch: 100, claimMs: 30_000 })).filter((e) => ids.has(e.eventId));
  if (round.length !== 3) throw new Error(`setup: claimed ${round.length} of the 3 new events`);
  return round;
}

describe('confirmRoundAndRecordDispatch', () => {
  it('When a round of three is confirmed, Then all three events and their jobs change in one round trip [test:confirm-round-one-statement]', async () => {
    const round = await claimedRound();
    const { counted, calls } = countingCalls(pool(), ['query', 'getConnection']);
    const confirmed = await confirmRoundAndRecordDispatch(counted, round);
    expect([...confirmed].sort()).toEqual(round.map((e) => e.eventId).sort());
    expect(calls).toEqual({ query: 1, getConnection: 0 });
    for (const event of round) expect(await dispatchedAt(event.jobId)).toBeInstanceOf(Date);
  });

  it("When one event of the round is no longer the round's (another token holds it), Then the other two are confirmed and named, and that one and its job change nothing [test:confirm-round-names-what-it-confirmed]", async () => {
    const round = await claimedRound();
    const [taken, ...kept] = round;
    // The claim on `taken` passed and another publisher claimed it: its token is not the round's any more.
    await pool().query('UPDATE export_outbox SET claim_token = ? WHERE id = ?', [randomUUID(), taken!.eventId]);
    const confirmed = await confirmRoundAndRecordDispatch(pool(), round);
    expect([...confirmed].sort()).toEqual(kept.map((e) => e.eventId).sort());
    expect((await readEvent(pool(), taken!.eventId))?.sentAt).toBeNull();
    expect(await dispatchedAt(taken!.jobId)).toBeNull();
    for (const event of kept) expect(await dispatchedAt(event.jobId)).toBeInstanceOf(Date);
  });

  it("When another transaction holds an event row, Then the round holds that event's job row while it waits: jobs first, then outbox [test:confirm-round-lock-order-job-then-outbox]", async () => {
    const [event] = await claimedRound();
    // The round's own pool waits 20 s for a lock (the lab's 1 s would end the wait before the probe on a busy machine).
    const patient = await openJobsDatabase({ database: db.name, settings: PATIENT, connectionLimit: 1 });
    const holder: PoolConnection = await pool().getConnection();
    let confirming: Promise<ReadonlySet<string>> | undefined;
    try {
      await holder.beginTransaction();
      await holder.query(HOLD_EVENT, [event!.eventId]);
      confirming = confirmRoundAndRecordDispatch(patient, [event!]);
      // Had the round locked the event first, it would wait with the job row free.
      await waitFor(
        'the round to lock the job row while it waits for the event',
        async () => !(await free(PROBE_JOB, event!.jobId)),
        {
          timeoutMs: 15_000,
          intervalMs: 10,
        },
      );
      await holder.commit();
      expect(await confirming).toEqual(new Set([event!.eventId]));
    } finally {
      holder.release();
      await confirming?.catch(() => {});
      await patient.end();
    }
  });

  it('When the round is empty, Then it sends nothing [test:confirm-round-empty]', async () => {
    const { counted, calls } = countingCalls(pool(), ['query', 'getConnection']);
    expect(await confirmRoundAndRecordDispatch(counted, [])).toEqual(new Set());
    expect(calls).toEqual({ query: 0, getConnection: 0 });
  });
});

describe('confirmAndRecordDispatch', () => {
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

describe.each(CONFIRM_FORMS)("lesson 12's publisher with lesson 15's confirmation, %s", (confirmForm) => {
  it(`When the publisher sends an event, Then its confirmation records the job's dispatch time [test:publisher-records-dispatch-${confirmForm}]`, async () => {
    await withResources(undefined, async (res) => {
      const prefix = scratchQueuePrefix(res, QUEUE_PREFIX);
      const admitted = await admitExport(pool(), [3], { rules: timings, deadlineMs: timings.deadlineMs });
      const publisher = res.add(
        await startPublisher({
          pool: pool(),
          timings: { ...timings, confirmForm },
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
