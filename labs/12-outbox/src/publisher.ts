// Lesson 12's publisher: the only thing that sends wake-ups to BullMQ now. A long-running
// loop, one round at a time:
//
//   1. claim     up to `batch` unsent events (one short transaction: SKIP LOCKED + a token)
//   2. send      each event's wake-up to BullMQ, with NO transaction open; BullMQ job id =
//                the event id. Each send is bounded by `sendTimeoutMs`: the queue never
//                buffers commands while Redis is unreachable (fail fast), and a send that
//                has no answer within the bound counts as failed. So with the broker down,
//                an error is reported within sendTimeoutMs of the send (the same bound
//                covers connecting a queue). A send that timed out may still land later
//                (a hung broker wakes up): its retry uses the same event id, so BullMQ
//                absorbs the second add.
//   3. confirm   by token, only after the broker accepted it (sent_at is set). A send that
//                failed is released: tried again after `retryDelayMs`. By default the round's
//                accepted sends are confirmed together, in one statement, once every send of
//                the round has its answer (OUTBOX_CONFIRM_FORM=per-round); `per-event` is the
//                course's form, one confirmation right after each send. Either way nothing is
//                confirmed before the broker accepted it; the round form holds a sent event
//                unconfirmed a little longer (until the round's slowest send answers), which
//                costs nothing: an unconfirmed, claimed event is not sent again until its
//                claim passes.
//
// Then it waits: for a NUDGE (a Redis pub/sub message a submission publishes after its
// commit), or for `pollMs` as the fallback. So an idle system sends a new event at once,
// not a poll interval later; a lost nudge (Redis hiccup) costs at most one poll interval.
// A full batch starts the next round at once.
//
// At least once: if the process dies (or the confirm fails) after the send, the event is
// still unsent in the table; its claim passes and a publisher sends it again. The worker
// must accept duplicates: lesson 11's claim and finish do.
//
// Fault points, for the drills (LAB_FAULTS):
//   after-claim   events claimed, nothing sent          crash: the claim passes, they are sent later
//   after-send    one event sent, not yet confirmed     crash/throw: the confirmation is lost
//                 (per round: the round's sends are done, none confirmed; hit once per round)
import type { Pool } from 'mysql2/promise';
import type { RedisOptions } from 'ioredis';
import {
  CodedError,
  errorMessage,
  faultPoints,
  idempotent,
  type FaultPoints,
  formatDuration,
} from '@tasks-lab/lab-kit';
import { brokerConnection, openQueue, type ExportJobName } from '@tasks-lab/08-broker-worker';
import type { DeliveryOutcome, WakeUpJob, WakeUpMessage, WakeUpQueue } from '@tasks-lab/11-mysql-leases';
import { bounded } from './bounded.ts';
import { subscribeToNudges } from './nudge.ts';
import type { OutboxOptionValues } from './options.ts';
import { claimEvents, confirmSent, confirmSentEvents, releaseFailed, type ClaimedEvent } from './outbox.ts';
import { exportsAddress, QUEUE_PREFIX, sendWakeUp } from './queue.ts';

export const PUBLISHER_FAULT_POINTS = ['after-claim', 'after-send'] as const;
export type PublisherFaultPoint = (typeof PUBLISHER_FAULT_POINTS)[number];
export type PublisherFaults = FaultPoints<PublisherFaultPoint>;

/** Reads LAB_FAULTS once; a rule naming another point is refused at start-up. */
export const publisherFaults = (env: NodeJS.ProcessEnv = process.env): PublisherFaults =>
  faultPoints(PUBLISHER_FAULT_POINTS, env);

/** The steps a broken variant may swap (the can-fail fixtures); the lab always uses PUBLISHER_PARTS. */
export interface PublisherParts {
  claimEvents: typeof claimEvents;
  /**
   * Lesson 12's confirmSent ignores the 4th argument, the claimed event; lesson 15 plugs in a
   * confirmation that also records the dispatch on the event's JOB row, so it needs the job id.
   */
  confirmSent: (pool: Pool, eventId: string, token: string, event: ClaimedEvent) => Promise<boolean>;
  /**
   * The per-round form: confirms the events of one claim that the broker accepted, and returns
   * the ids it confirmed. Lesson 12's is confirmSentEvents; lesson 15's also stamps each job.
   */
  confirmRound: (pool: Pool, events: readonly ClaimedEvent[]) => Promise<ReadonlySet<string>>;
  releaseFailed: typeof releaseFailed;
  sendWakeUp: (queue: WakeUpQueue, event: ClaimedEvent) => Promise<WakeUpJob>;
}

/** A round's events share their claim's token: one statement confirms them. */
const confirmRound: PublisherParts['confirmRound'] = (pool, events) =>
  confirmSentEvents(
    pool,
    events.map((event) => event.eventId),
    tokenOf(events),
  );

/** The one token of a round's events (claimEvents gives every event of a claim the same one). */
export function tokenOf(events: readonly ClaimedEvent[]): string {
  const token = events[0]?.token ?? '';
  if (events.some((event) => event.token !== token)) throw new Error('the events of one round carry different tokens');
  return token;
}

export const PUBLISHER_PARTS: PublisherParts = { claimEvents, confirmSent, confirmRound, releaseFailed, sendWakeUp };

/** A send that had no answer from the broker within the bound. */
export class SendTimeoutError extends CodedError {
  constructor(eventId: string, ms: number) {
    super('send-timeout', `the broker did not accept event ${eventId} within ${formatDuration(ms)}`);
  }
}

export type PublisherTimings = Pick<
  OutboxOptionValues,
  'claimMs' | 'pollMs' | 'batch' | 'retryDelayMs' | 'sendTimeoutMs' | 'nudgeChannel'
> &
  Partial<Pick<OutboxOptionValues, 'confirmForm'>>;

export interface PublisherOptions {
  /** The process's one pool (the caller ends it, after close()). */
  pool: Pool;
  timings: PublisherTimings;
  /** Redis for BullMQ and the nudges. @defaultValue brokerConnection() */
  connection?: RedisOptions;
  /** BullMQ key prefix. @defaultValue tasks-lab12 */
  prefix?: string;
  /** Listen for nudges on timings.nudgeChannel. false: polling only (a test of the fallback). @defaultValue true */
  listen?: boolean;
  /**
   * @defaultValue publisherFaults() (LAB_FAULTS). Only hit() is used, so a later lab may pass a
   * reading that declares more points (lesson 15's publisher adds its confirmation's).
   */
  faults?: Pick<PublisherFaults, 'hit'>;
  /** Only the can-fail fixtures pass broken parts. */
  parts?: Partial<PublisherParts>;
  /** One line per event sent, and the ready line. @defaultValue say nothing */
  log?: (line: string) => void;
  /** One line per error (a failed send, a failed claim, a lost confirmation). @defaultValue console.error */
  report?: (line: string) => void;
}

/** What the publisher did so far: for the checks, the drills and the process's log. */
export interface PublisherStats {
  /** Rounds run (claims tried). */
  rounds: number;
  claimed: number;
  /** Sends the broker accepted (a resend of one event counts again). */
  sent: number;
  /** Sends confirmed by token (sent_at set). */
  confirmed: number;
  /** Sends whose confirm found the claim gone: sent, not the record; it may be sent again. */
  confirmLost: number;
  /** Sends that failed or timed out; those events were released for a retry. */
  sendFailures: number;
  /** Other errors: a claim or a confirm that failed. */
  errors: number;
  /** Wake-ups by a nudge, and by the poll timer. */
  nudges: number;
  polls: number;
  lastError: string | undefined;
}

export interface RunningPublisher {
  /** Stops after the in-flight round (its sends and confirms finish), then closes its Redis connections. Idempotent. */
  close(): Promise<void>;
  /** Starts the next round now (what a nudge message does). */
  nudge(): void;
  stats(): PublisherStats;
}

/** Starts the loop. It does not wait for Redis: with the broker down it starts, reports and keeps trying. */
export async function startPublisher(options: PublisherOptions): Promise<RunningPublisher> {
  const { pool, timings } = options;
  const parts = { ...PUBLISHER_PARTS, ...options.parts };
  const confirmForm = timings.confirmForm ?? 'per-round';
  // A swapped per-event confirmation would silently not run in the round form: say so at start.
  if (confirmForm === 'per-round' && options.parts?.confirmSent && !options.parts.confirmRound)
    throw new Error(
      'a publisher given its own confirmSent runs with confirmForm per-event, or is given confirmRound too',
    );
  const faults = options.faults ?? publisherFaults();
  const connection = options.connection ?? brokerConnection();
  const prefix = options.prefix ?? QUEUE_PREFIX;
  const log = options.log ?? (() => {});
  const report = options.report ?? ((line: string) => console.error(line));
  const stats: PublisherStats = {
    rounds: 0,
    claimed: 0,
    sent: 0,
    confirmed: 0,
    confirmLost: 0,
    sendFailures: 0,
    errors: 0,
    nudges: 0,
    polls: 0,
    lastError: undefined,
  };
  const wake = new WakeUp();
  const queues = new QueueCache(connection, prefix);
  let stopping = false;

  const fail = (line: string) => {
    stats.lastError = line;
    report(line);
  };

  const what = (event: ClaimedEvent) =>
    `event ${event.eventId} (job ${event.jobId}, send attempt ${event.sendAttempts})`;

  /** Sends one wake-up; a failed send is released. true = the broker accepted it. Never throws. */
  async function sendOne(event: ClaimedEvent): Promise<boolean> {
    try {
      await bounded(
        queues.get(event.queueName).then((queue) => parts.sendWakeUp(queue, event)),
        timings.sendTimeoutMs,
        () => new SendTimeoutError(event.eventId, timings.sendTimeoutMs),
      );
    } catch (err) {
      stats.sendFailures += 1;
      fail(
        `send of ${what(event)} failed: ${errorMessage(err)}; released, next try after ${formatDuration(timings.retryDelayMs)}`,
      );
      await parts
        .releaseFailed(pool, event.eventId, event.token, errorMessage(err), { retryDelayMs: timings.retryDelayMs })
        .catch((releaseErr: unknown) => {
          stats.errors += 1;
          fail(
            `release of ${what(event)} failed: ${errorMessage(releaseErr)}; it is sent again after its claim passes`,
          );
        });
      return false;
    }
    stats.sent += 1;
    return true;
  }

  /** Counts and reports one sent event's confirmation: confirmed, or its claim had passed. */
  function confirmedOrLost(event: ClaimedEvent, confirmed: boolean): void {
    if (confirmed) {
      stats.confirmed += 1;
      log(`sent ${what(event)}: confirmed`);
    } else {
      stats.confirmLost += 1;
      fail(`sent ${what(event)}, but its claim had passed: not confirmed, it may be sent again`);
    }
  }

  function confirmationFailed(events: readonly ClaimedEvent[], err: unknown): void {
    stats.errors += events.length;
    for (const event of events)
      fail(
        `sent ${what(event)}, but the confirmation failed: ${errorMessage(err)}; it is sent again after its claim passes`,
      );
  }

  /** The course's form: send, then confirm (or release), each event on its own. Never throws. */
  async function publishOne(event: ClaimedEvent): Promise<void> {
    if (!(await sendOne(event))) return;
    try {
      await faults.hit('after-send');
      confirmedOrLost(event, await parts.confirmSent(pool, event.eventId, event.token, event));
    } catch (err) {
      confirmationFailed([event], err);
    }
  }

  /** The round form: every send first, then the accepted ones confirmed together. Never throws. */
  async function publishRound(events: readonly ClaimedEvent[]): Promise<void> {
    const answers = await Promise.all(events.map(sendOne));
    const sent = events.filter((_, i) => answers[i]);
    if (sent.length === 0) return;
    try {
      await faults.hit('after-send');
      const confirmed = await parts.confirmRound(pool, sent);
      for (const event of sent) confirmedOrLost(event, confirmed.has(event.eventId));
    } catch (err) {
      confirmationFailed(sent, err);
    }
  }

  /** One round: claim, send and confirm each event. true = the batch was full (more may be waiting). */
  async function round(): Promise<boolean> {
    stats.rounds += 1;
    let events: ClaimedEvent[];
    try {
      events = await parts.claimEvents(pool, { batch: timings.batch, claimMs: timings.claimMs });
    } catch (err) {
      stats.errors += 1;
      fail(`claiming events failed: ${errorMessage(err)}; next try in ${formatDuration(timings.pollMs)}`);
      return false;
    }
    if (events.length === 0) return false;
    stats.claimed += events.length;
    try {
      await faults.hit('after-claim');
    } catch (err) {
      stats.errors += 1;
      fail(`after claiming ${events.length} event(s): ${errorMessage(err)}; they are sent after their claim passes`);
      return false;
    }
    if (confirmForm === 'per-round') await publishRound(events);
    else await Promise.all(events.map(publishOne));
    return events.length === timings.batch;
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      let more = false;
      try {
        more = await round();
      } catch (err) {
        // round() reports what it expects; anything else is reported here and the loop goes on.
        stats.errors += 1;
        fail(`publisher round failed: ${errorMessage(err)}`);
      }
      if (more || stopping) continue;
      const by = await wake.wait(timings.pollMs);
      if (by === 'nudge') stats.nudges += 1;
      else if (by === 'timer') stats.polls += 1;
    }
  }

  const subscriber =
    options.listen === false
      ? undefined
      : subscribeToNudges(connection, timings.nudgeChannel, () => wake.signal('nudge'), fail);
  const running = loop();

  return {
    close: idempotent(async () => {
      stopping = true;
      wake.signal('stop');
      await running;
      await Promise.all([subscriber?.close(), queues.close(timings.sendTimeoutMs)]);
    }),
    nudge: () => wake.signal('nudge'),
    stats: () => ({ ...stats }),
  };
}

// ---------------------------------------------------------------------------------
// The parts of the loop

type WakeReason = 'nudge' | 'timer' | 'stop';

/** The loop's alarm clock: a nudge that arrives while a round runs is kept, so the next wait returns at once. */
class WakeUp {
  #pending: WakeReason | undefined;
  #wakeNow: ((reason: WakeReason) => void) | undefined;

  signal(reason: WakeReason): void {
    if (this.#wakeNow) this.#wakeNow(reason);
    else if (this.#pending !== 'stop') this.#pending = reason;
  }

  wait(ms: number): Promise<WakeReason> {
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending) return Promise.resolve(pending);
    return new Promise((resolve) => {
      const timer = setTimeout(() => done('timer'), ms);
      const done = (reason: WakeReason) => {
        clearTimeout(timer);
        this.#wakeNow = undefined;
        resolve(reason);
      };
      this.#wakeNow = done;
    });
  }
}

/** One BullMQ queue per queue name, opened on first use (fail fast: no offline queue) and kept. */
class QueueCache {
  readonly #queues = new Map<string, Promise<WakeUpQueue>>();
  constructor(
    private readonly connection: RedisOptions,
    private readonly prefix: string,
  ) {}

  get(queueName: string): Promise<WakeUpQueue> {
    let queue = this.#queues.get(queueName);
    if (!queue) {
      // openQueue waits until Redis answers; the send's bound limits that wait. A failed
      // open is forgotten, so the next send tries again.
      queue = openQueue<WakeUpMessage, DeliveryOutcome, ExportJobName>(
        { ...exportsAddress(queueName), prefix: this.prefix },
        { connection: this.connection },
      );
      queue.catch(() => this.#queues.delete(queueName));
      this.#queues.set(queueName, queue);
    }
    return queue;
  }

  /** Closes every queue, each within `ms` (with Redis down a polite close could wait for ever). */
  async close(ms: number): Promise<void> {
    const queues = [...this.#queues.values()];
    this.#queues.clear();
    await Promise.all(
      queues.map(async (opening) => {
        const queue = await bounded(opening, ms, () => new Error('not connected')).catch(() => undefined);
        if (!queue) return;
        await bounded(queue.close(), ms, () => new Error('close timed out')).catch(() => queue.disconnect());
      }),
    );
  }
}
