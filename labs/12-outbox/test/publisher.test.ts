// The publisher loop against a fresh database and Redis, in both confirmation forms: sends
// with the event id as the BullMQ job id and confirms; falls back to polling; a hung broker
// is reported within the send bound and the event is released; a failed send in a round
// leaves the others confirmed; close() is idempotent. Then what only the round form does.
import { randomBytes } from 'node:crypto';
import { startPrivateRedis, type PrivateRedis } from '@tasks-lab/infra';
import { faultPoints, waitFor } from '@tasks-lab/lab-kit';
import { brokerConnection, openQueue, type ExportJobName } from '@tasks-lab/08-broker-worker';
import type { DeliveryOutcome, WakeUpMessage, WakeUpQueue } from '@tasks-lab/11-mysql-leases';
import type { RedisOptions } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { COURSE_TIMINGS, CONFIRM_FORMS, readOutboxOptions, readShortOutboxOptions } from '../src/options.ts';
import { readEvent, submitWithEvent } from '../src/outbox.ts';
import { PUBLISHER_PARTS, startPublisher, type RunningPublisher } from '../src/publisher.ts';
import { exportsAddress, sendWakeUp } from '../src/queue.ts';

let db: FreshDatabase | undefined;
beforeAll(async () => {
  db = await freshDatabase('publisher');
}, 60_000);
afterAll(() => db?.drop());

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

const timings = readShortOutboxOptions({});
const noFaults = () => faultPoints(['after-claim', 'after-send'], {});

async function queueOn(
  connection: RedisOptions = brokerConnection(),
): Promise<{ queueName: string; queue: WakeUpQueue }> {
  const queueName = `pubtest-${randomBytes(3).toString('hex')}`;
  const queue = await openQueue<WakeUpMessage, DeliveryOutcome, ExportJobName>(exportsAddress(queueName), {
    connection,
  });
  cleanups.push(async () => {
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
  });
  return { queueName, queue };
}

async function startedPublisher(
  options: Partial<Parameters<typeof startPublisher>[0]> = {},
  errors: string[] = [],
): Promise<RunningPublisher> {
  const running = await startPublisher({
    pool: db!.pool,
    timings,
    faults: noFaults(),
    report: (line) => errors.push(line),
    ...options,
  });
  cleanups.push(() => running.close());
  return running;
}

const sent = async (eventId: string) => (await readEvent(db!.pool, eventId))?.sentAt != null;

describe.each(CONFIRM_FORMS)('the publisher, confirming %s', (confirmForm) => {
  const formTimings = { ...timings, confirmForm };
  const publisher = (options: Partial<Parameters<typeof startPublisher>[0]> = {}, errors: string[] = []) =>
    startedPublisher({ timings: formTimings, ...options }, errors);

  it('When an event is committed and the publisher is nudged, Then BullMQ gets a job whose id is the event id, and the event is confirmed', async () => {
    const { queueName, queue } = await queueOn();
    const running = await publisher();
    const { jobId, eventId } = await submitWithEvent(db!.pool, [1], { queueName });
    running.nudge();
    await waitFor('the event to be confirmed', () => sent(eventId), { timeoutMs: 10_000, intervalMs: 20 });
    // The row's sent_at is visible the moment the confirm commits, a turn of the event loop before
    // the publisher counts it: wait for the count too, or the next line races the publisher.
    await waitFor('the publisher to count the confirm', () => running.stats().confirmed === 1, {
      timeoutMs: 5000,
      intervalMs: 20,
    });
    const job = await queue.getJob(eventId);
    expect(job?.data).toEqual({ job_id: jobId });
    expect(running.stats()).toMatchObject({ sent: 1, confirmed: 1, sendFailures: 0 });
  });

  it('When nobody nudges and it does not listen, Then polling sends the event within about one poll interval', async () => {
    const { queueName } = await queueOn();
    await publisher({ listen: false, timings: { ...formTimings, pollMs: 300 } });
    const { eventId } = await submitWithEvent(db!.pool, [1], { queueName });
    await waitFor('the poll to send the event', () => sent(eventId), { timeoutMs: 5000, intervalMs: 20 });
  });

  describe('with a broker that hangs', () => {
    let redis: PrivateRedis | undefined;
    beforeAll(async () => {
      redis = await startPrivateRedis();
    }, 30_000);
    afterAll(() => redis?.close());

    it('When the broker stops answering, Then the send fails within the bound, is reported, the event is released, and it is sent once the broker answers again', async () => {
      const { queueName } = await queueOn(redis!.options());
      const errors: string[] = [];
      const running = await publisher({ connection: redis!.options(), listen: false }, errors);
      // Connect the publisher's queue first: a hung broker, not a missing one.
      const warmUp = await submitWithEvent(db!.pool, [1], { queueName });
      running.nudge();
      await waitFor('the warm-up event to be sent', () => sent(warmUp.eventId), { timeoutMs: 10_000, intervalMs: 20 });
      redis!.pause();
      try {
        const { eventId } = await submitWithEvent(db!.pool, [1], { queueName });
        const startedAt = Date.now();
        running.nudge();
        await waitFor('the failure to be reported', async () => errors.some((line) => line.includes(eventId)), {
          timeoutMs: timings.sendTimeoutMs + 3000,
          intervalMs: 20,
        });
        expect(Date.now() - startedAt).toBeLessThan(timings.sendTimeoutMs + 2000);
        expect(errors.find((line) => line.includes(eventId))).toMatch(/did not accept event .* within 1 s/);
        await waitFor(
          'the release to be written',
          async () => (await readEvent(db!.pool, eventId))?.lastError != null,
          { timeoutMs: 3000, intervalMs: 20 },
        );
        expect(await readEvent(db!.pool, eventId)).toMatchObject({ sentAt: null, claimToken: null });
        redis!.resume();
        await waitFor('the event to be sent after the broker is back', () => sent(eventId), {
          timeoutMs: 15_000,
          intervalMs: 50,
        });
      } finally {
        redis!.resume();
      }
    }, 40_000);
  });

  it('When close() is called twice during work, Then both calls resolve and no round runs after', async () => {
    const { queueName } = await queueOn();
    const running = await publisher();
    for (let i = 0; i < 5; i++) await submitWithEvent(db!.pool, [1], { queueName });
    running.nudge();
    await Promise.all([running.close(), running.close()]);
    const rounds = running.stats().rounds;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(running.stats().rounds).toBe(rounds);
  });

  it('When one send of a round fails, Then the others are confirmed and the failed one is released, unsent', async () => {
    const { queueName } = await queueOn();
    const submitted = [];
    for (let i = 0; i < 4; i++) submitted.push(await submitWithEvent(db!.pool, [1], { queueName }));
    const refused = submitted[1]!.eventId;
    const errors: string[] = [];
    const running = await publisher(
      {
        listen: false,
        parts: {
          sendWakeUp: (queue, event) =>
            event.eventId === refused ? Promise.reject(new Error('refused by the test')) : sendWakeUp(queue, event),
        },
      },
      errors,
    );
    running.nudge();
    for (const { eventId } of submitted.filter((s) => s.eventId !== refused))
      await waitFor(`event ${eventId} to be confirmed`, () => sent(eventId), { timeoutMs: 10_000, intervalMs: 20 });
    await waitFor(
      'the refused send to be released',
      async () => (await readEvent(db!.pool, refused))?.lastError != null,
      {
        timeoutMs: 5000,
        intervalMs: 20,
      },
    );
    expect(await readEvent(db!.pool, refused)).toMatchObject({ sentAt: null, claimToken: null });
    expect(errors.filter((line) => line.includes(refused))).toHaveLength(1);
    // Earlier cases leave unsent events in this database: this publisher sends them too.
    await waitFor('the publisher to count the confirms', () => running.stats().confirmed >= 3, {
      timeoutMs: 5000,
      intervalMs: 20,
    });
    expect(running.stats()).toMatchObject({ sendFailures: 1, confirmLost: 0 });
  });
});

describe('the round form', () => {
  it('When every send of a round is accepted, Then the round is confirmed with one statement, not one per event', async () => {
    const { queueName } = await queueOn();
    const submitted = [];
    for (let i = 0; i < 5; i++) submitted.push(await submitWithEvent(db!.pool, [1], { queueName }));
    const rounds: string[][] = [];
    const running = await startedPublisher({
      timings: { ...timings, confirmForm: 'per-round' },
      listen: false,
      parts: {
        confirmRound: (pool, events) => {
          rounds.push(events.map((event) => event.eventId));
          return PUBLISHER_PARTS.confirmRound(pool, events);
        },
      },
    });
    running.nudge();
    for (const { eventId } of submitted)
      await waitFor(`event ${eventId} to be confirmed`, () => sent(eventId), { timeoutMs: 10_000, intervalMs: 20 });
    // One confirmation carried all five (a leftover event of an earlier case may ride along).
    const ours = submitted.map((s) => s.eventId);
    expect(rounds.filter((round) => ours.some((id) => round.includes(id)))).toHaveLength(1);
    expect(rounds.find((round) => round.includes(ours[0]!))).toEqual(expect.arrayContaining(ours));
  });

  it('When a publisher is given its own per-event confirmation in the round form, Then it refuses to start (that part would never run)', async () => {
    await expect(
      startedPublisher({
        timings: { ...timings, confirmForm: 'per-round' },
        listen: false,
        parts: { confirmSent: PUBLISHER_PARTS.confirmSent },
      }),
    ).rejects.toThrow(/confirmForm per-event/);
  });

  it('OUTBOX_CONFIRM_FORM names the two forms; per-round is the default', () => {
    expect(CONFIRM_FORMS).toEqual(['per-round', 'per-event']);
    expect(COURSE_TIMINGS.confirmForm).toBe('per-round');
    expect(readOutboxOptions({ env: { OUTBOX_CONFIRM_FORM: 'per-event' } }).confirmForm).toBe('per-event');
  });
});
