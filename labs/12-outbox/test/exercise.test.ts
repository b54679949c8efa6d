// Grades the try-it-yourself exercise: solutions/confirm-event.ts by default,
// exercise/confirm-event.ts with LAB_EXERCISE=student (pnpm lab 12 --exercise).
import { loadExercise, sleep } from '@tasks-lab/lab-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { claimEvents, readEvent, submitWithEvent, type ClaimedEvent } from '../src/outbox.ts';

const { confirmSent } = await loadExercise<typeof import('../solutions/confirm-event.ts')>(
  import.meta.url,
  'confirm-event.ts',
);

let db: FreshDatabase | undefined;
beforeAll(async () => {
  db = await freshDatabase('exercise');
}, 60_000);
afterAll(() => db?.drop());

/** A new event, claimed for `claimMs` (only this one is unsent: earlier tests confirmed or released theirs). */
async function claimedEvent(claimMs: number): Promise<ClaimedEvent> {
  const { eventId } = await submitWithEvent(db!.pool, [1]);
  const claimed = await claimEvents(db!.pool, { batch: 100, claimMs });
  const event = claimed.find((e) => e.eventId === eventId);
  if (!event) throw new Error('the claim did not take the new event');
  return event;
}

describe('exercise: confirm a sent event by its claim token', () => {
  it('When the holder confirms while its claim is live, Then it answers true and sent_at is set [test:exercise-confirm-by-token]', async () => {
    const event = await claimedEvent(10_000);
    expect(await confirmSent(db!.pool, event.eventId, event.token)).toBe(true);
    expect((await readEvent(db!.pool, event.eventId))!.sentAt).not.toBeNull();
  });

  it('When another token confirms, Then it answers false and the event stays unsent [test:exercise-other-token-refused]', async () => {
    const event = await claimedEvent(10_000);
    expect(await confirmSent(db!.pool, event.eventId, '00000000-0000-4000-8000-000000000000')).toBe(false);
    expect((await readEvent(db!.pool, event.eventId))!.sentAt).toBeNull();
    await confirmSent(db!.pool, event.eventId, event.token);
  });

  it('When the claim has passed, Then confirming answers false: another publisher may be sending it again [test:exercise-passed-claim-refused]', async () => {
    const event = await claimedEvent(200);
    await sleep(400);
    expect(await confirmSent(db!.pool, event.eventId, event.token)).toBe(false);
    expect((await readEvent(db!.pool, event.eventId))!.sentAt).toBeNull();
  });

  it('When the holder confirms twice, Then the second answers false and sent_at keeps the first time', async () => {
    const event = await claimedEvent(10_000);
    expect(await confirmSent(db!.pool, event.eventId, event.token)).toBe(true);
    const first = (await readEvent(db!.pool, event.eventId))!.sentAt;
    await sleep(20);
    expect(await confirmSent(db!.pool, event.eventId, event.token)).toBe(false);
    expect((await readEvent(db!.pool, event.eventId))!.sentAt).toEqual(first);
  });
});
