// The outbox's data layer against a fresh database: the submit transaction, the claim,
// the confirm by token (one event, or a round in one statement) and the release of a failed send.
import { faultPoints, faultRule, FAULTS_ENV } from '@tasks-lab/lab-kit';
import { countingCalls } from '@tasks-lab/lab-kit/testing';
import { readJob } from '@tasks-lab/11-mysql-leases';
import type { RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import {
  claimEvents,
  confirmSent,
  confirmSentEvents,
  readEvent,
  releaseFailed,
  submitWithEvent,
  SUBMIT_FAULT_POINTS,
} from '../src/outbox.ts';
import { COUNT_JOB_AND_EVENTS } from '../src/outbox-queries.ts';

let db: FreshDatabase | undefined;
beforeAll(async () => {
  db = await freshDatabase('outbox');
}, 60_000);
afterAll(() => db?.drop());
// Each test starts with no unsent event, so a claim sees only the test's own.
beforeEach(async () => {
  await db!.pool.query('UPDATE export_outbox SET sent_at = NOW(6) WHERE sent_at IS NULL');
});

const pool = () => db!.pool;

/** The test's clock: an event's claim, ended 1 ms ago (as if its publisher had stopped). Parameters: [eventId]. */
const MARK_CLAIM_PASSED = `
  UPDATE export_outbox
  SET claimed_until = TIMESTAMPADD(MICROSECOND, -1000, NOW(6))
  WHERE id = ? AND claimed_until IS NOT NULL`;

/** The test's clock: a released event's retry delay, ended 1 ms ago. Parameters: [eventId]. */
const MARK_RETRY_DUE = `
  UPDATE export_outbox
  SET available_at = TIMESTAMPADD(MICROSECOND, -1000, NOW(6))
  WHERE id = ? AND sent_at IS NULL`;

async function rowsOf(jobId: string): Promise<{ jobs: number; events: number }> {
  const [rows] = await pool().query<RowDataPacket[]>(COUNT_JOB_AND_EVENTS, [jobId, jobId]);
  return { jobs: Number(rows[0]?.jobs), events: Number(rows[0]?.events) };
}

describe('submitWithEvent', () => {
  it('When an export is submitted, Then a queued job and one unsent event for it exist, with different ids', async () => {
    const { jobId, eventId, created } = await submitWithEvent(pool(), [1, 2], { queueName: 'exports' });
    expect(created).toBe(true);
    expect(eventId).not.toBe(jobId);
    expect(await rowsOf(jobId)).toEqual({ jobs: 1, events: 1 });
    expect((await readJob(pool(), jobId))!.status).toBe('queued');
    const event = (await readEvent(pool(), eventId))!;
    expect(event).toMatchObject({ jobId, queueName: 'exports', sentAt: null, claimToken: null, sendAttempts: 0 });
  });

  it('When the fault point after-job-insert throws, Then neither the job nor the event exists', async () => {
    const faults = faultPoints(SUBMIT_FAULT_POINTS, { [FAULTS_ENV]: faultRule('after-job-insert', 'throw') });
    const jobId = '11111111-2222-4333-8444-555555555555';
    await expect(submitWithEvent(pool(), [1], { jobId, faults })).rejects.toMatchObject({ code: 'fault-injected' });
    expect(await rowsOf(jobId)).toEqual({ jobs: 0, events: 0 });
  });

  it('When a product is missing, Then the submission is refused and nothing is written', async () => {
    const jobId = '21111111-2222-4333-8444-555555555555';
    await expect(submitWithEvent(pool(), [1, 999_999], { jobId })).rejects.toMatchObject({ code: 'missing-products' });
    expect(await rowsOf(jobId)).toEqual({ jobs: 0, events: 0 });
  });

  it('When the same Idempotency-Key is replayed, Then the first job and its first event come back and nothing new is written', async () => {
    const first = await submitWithEvent(pool(), [3], { idempotencyKey: 'outbox-replay-1' });
    const again = await submitWithEvent(pool(), [3], { idempotencyKey: 'outbox-replay-1' });
    expect(again).toEqual({ ...first, created: false });
    expect(await rowsOf(first.jobId)).toEqual({ jobs: 1, events: 1 });
  });

  it('When two requests race with one Idempotency-Key, Then both get the same job and event', async () => {
    const [a, b] = await Promise.all([
      submitWithEvent(pool(), [2], { idempotencyKey: 'outbox-race-1' }),
      submitWithEvent(pool(), [2], { idempotencyKey: 'outbox-race-1' }),
    ]);
    expect(a.jobId).toBe(b.jobId);
    expect(a.eventId).toBe(b.eventId);
    expect(await rowsOf(a.jobId)).toEqual({ jobs: 1, events: 1 });
  });

  it('When the queue name is not a plain name, Then the submission is refused before anything is written', async () => {
    await expect(submitWithEvent(pool(), [1], { queueName: 'bad:name' })).rejects.toThrow(/queue name/);
  });
});

describe('claim, confirm, release', () => {
  it('When a publisher claims, Then it gets the oldest events first, with one token and one more send attempt', async () => {
    const a = await submitWithEvent(pool(), [1]);
    const b = await submitWithEvent(pool(), [1]);
    const claimed = await claimEvents(pool(), { batch: 10, claimMs: 5000 });
    expect(claimed.map((e) => e.eventId)).toEqual([a.eventId, b.eventId]);
    expect(new Set(claimed.map((e) => e.token)).size).toBe(1);
    expect(claimed.every((e) => e.sendAttempts === 1)).toBe(true);
  });

  it('When an event is under a live claim, Then a second claim does not get it; after the claim passes it does, with a new token', async () => {
    const { eventId } = await submitWithEvent(pool(), [1]);
    // A 30 s claim, then back-dated: a claim short enough to pass for real could pass before the
    // second claim on a slow machine (CI runs ten labs on two cores). The broker-down drill's
    // resend waits for a claim to pass for real.
    const [first] = await claimEvents(pool(), { batch: 10, claimMs: 30_000 });
    expect(first?.eventId).toBe(eventId);
    expect(await claimEvents(pool(), { batch: 10, claimMs: 30_000 })).toEqual([]);
    await pool().query(MARK_CLAIM_PASSED, [eventId]);
    const [second] = await claimEvents(pool(), { batch: 10, claimMs: 5000 });
    expect(second).toMatchObject({ eventId, sendAttempts: 2 });
    expect(second!.token).not.toBe(first!.token);
    // The first holder's claim passed: its confirmation changes nothing.
    expect(await confirmSent(pool(), eventId, first!.token)).toBe(false);
    expect(await confirmSent(pool(), eventId, second!.token)).toBe(true);
  });

  it('When the batch is smaller than the backlog, Then a claim takes only the batch', async () => {
    for (let i = 0; i < 3; i++) await submitWithEvent(pool(), [1]);
    expect(await claimEvents(pool(), { batch: 2, claimMs: 5000 })).toHaveLength(2);
    expect(await claimEvents(pool(), { batch: 2, claimMs: 5000 })).toHaveLength(1);
  });

  it('When a send failed and the event is released, Then it keeps the reason and is claimable only after the retry delay', async () => {
    const { eventId } = await submitWithEvent(pool(), [1]);
    const [claimed] = await claimEvents(pool(), { batch: 10, claimMs: 5000 });
    // A 30 s retry delay, then back-dated (as the claim above): a delay short enough to pass
    // for real could pass before the second claim on a slow machine.
    expect(await releaseFailed(pool(), eventId, claimed!.token, 'broker down', { retryDelayMs: 30_000 })).toBe(true);
    const released = (await readEvent(pool(), eventId))!;
    expect(released).toMatchObject({ claimToken: null, claimedUntil: null, sentAt: null, lastError: 'broker down' });
    expect(released.availableAt.getTime() - Date.now()).toBeGreaterThan(20_000);
    expect(await claimEvents(pool(), { batch: 10, claimMs: 5000 })).toEqual([]);
    await pool().query(MARK_RETRY_DUE, [eventId]);
    expect((await claimEvents(pool(), { batch: 10, claimMs: 5000 })).map((e) => e.eventId)).toEqual([eventId]);
  });

  it('When a release comes from a token that no longer holds the event, Then it changes nothing', async () => {
    const { eventId } = await submitWithEvent(pool(), [1]);
    const [claimed] = await claimEvents(pool(), { batch: 10, claimMs: 5000 });
    expect(await confirmSent(pool(), eventId, claimed!.token)).toBe(true);
    expect(await releaseFailed(pool(), eventId, claimed!.token, 'late failure')).toBe(false);
    expect((await readEvent(pool(), eventId))!.sentAt).not.toBeNull();
  });
});

describe('confirmSentEvents, a round confirmed in one statement', () => {
  it("When all of a round's events are still its own, Then one statement confirms them all", async () => {
    for (let i = 0; i < 3; i++) await submitWithEvent(pool(), [1]);
    const round = await claimEvents(pool(), { batch: 10, claimMs: 30_000 });
    const ids = round.map((e) => e.eventId);
    const { counted, calls } = countingCalls(pool(), ['query', 'getConnection']);
    expect(await confirmSentEvents(counted, ids, round[0]!.token)).toEqual(new Set(ids));
    expect(calls).toEqual({ query: 1, getConnection: 0 });
    for (const id of ids) expect((await readEvent(pool(), id))!.sentAt).not.toBeNull();
  });

  it('When the claim on one of them passed and another publisher holds it, Then the others are confirmed and named, and that one stays unsent', async () => {
    for (let i = 0; i < 3; i++) await submitWithEvent(pool(), [1]);
    const round = await claimEvents(pool(), { batch: 10, claimMs: 30_000 });
    const [taken, ...kept] = round;
    await pool().query(MARK_CLAIM_PASSED, [taken!.eventId]);
    const [again] = await claimEvents(pool(), { batch: 10, claimMs: 30_000 });
    expect(again?.eventId).toBe(taken!.eventId);
    const confirmed = await confirmSentEvents(
      pool(),
      round.map((e) => e.eventId),
      taken!.token,
    );
    expect(confirmed).toEqual(new Set(kept.map((e) => e.eventId)));
    expect((await readEvent(pool(), taken!.eventId))!.sentAt).toBeNull();
    // The new holder still confirms it.
    expect(await confirmSent(pool(), again!.eventId, again!.token)).toBe(true);
  });

  it('When the round has no accepted send, Then nothing is sent to the database', async () => {
    const { counted, calls } = countingCalls(pool(), ['query', 'getConnection']);
    expect(await confirmSentEvents(counted, [], 'no-token')).toEqual(new Set());
    expect(calls).toEqual({ query: 0, getConnection: 0 });
  });
});
