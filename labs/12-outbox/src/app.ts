// Lesson 12's HTTP API: lesson 11's, with one change on POST. The API no longer talks to
// BullMQ at all: it writes the job AND its outbox event in one transaction, answers only
// after that commit, and then NUDGES the publisher (a hint, not a message):
//
//   POST /exports       submitWithEvent: snapshot + job row + outbox event, one transaction;
//                       then a nudge so an idle publisher sends at once; 202 + Location.
//                       A lost nudge costs latency (the publisher's polling finds the event),
//                       never the job: the event is already committed.
//   GET  /exports/:id   reads the row, as in lesson 11 (404 only when there is no row).
//
// The Idempotency-Key, the response shape and the error middleware are lesson 11's and
// lesson 01's, imported, not restated.
import type { Express, Request, RequestHandler } from 'express';
import type { Pool } from 'mysql2/promise';
import type { ErrorTranslator } from '@tasks-lab/01-state-machine';
import { createApp as createLeaseApp } from '@tasks-lab/11-mysql-leases';
import { submitWithEvent, type SubmitWithEventOptions, type SubmitWithEventResult } from './outbox.ts';

export interface AppOptions {
  /** The process's one pool. */
  pool: Pool;
  /** Tells the publisher that an event was committed (publishNudge on the lab's Redis). */
  nudge: () => Promise<unknown>;
  /** How a submission is stored. @defaultValue submitWithEvent (the can-fail fixtures pass broken ones; lesson 13 its admission) */
  submit?: (
    pool: Pool,
    productIds: readonly number[],
    options: SubmitWithEventOptions,
    req: Request,
  ) => Promise<SubmitWithEventResult>;
  /** Routes a later lesson adds (lesson 13's GET /backlog), before the 404 handler. */
  routes?: (app: Express) => void;
  /** Lesson 11's step before the body is read (lesson 13's early refusal). @defaultValue none */
  beforeBody?: RequestHandler;
  /** The BullMQ queue each new event will wake a worker on. @defaultValue submitWithEvent's ('exports') */
  queueName?: string;
  /** How long a new job has before its deadline. @defaultValue submitWithEvent's (the course's 10 minutes) */
  deadlineMs?: number;
  log?: (line: string) => void;
  /** Errors a later lesson answers itself (lesson 11's createApp option). */
  translateError?: ErrorTranslator;
}

/**
 * Lesson 11's app with lesson 12's two changes: the submission writes the job and its
 * event together (submitWithEvent), and what follows the commit is a nudge, sent on every
 * accepted request, a replay included: it costs one PUBLISH, and an event whose first nudge
 * was lost is sent now instead of at the next poll.
 */
export function createApp(options: AppOptions): Express {
  const submit = options.submit ?? submitWithEvent;
  return createLeaseApp({
    pool: options.pool,
    deadlineMs: options.deadlineMs,
    log: options.log,
    submit: (pool, productIds, submitOptions, req) =>
      submit(pool, productIds, { ...submitOptions, queueName: options.queueName }, req),
    routes: options.routes,
    beforeBody: options.beforeBody,
    translateError: options.translateError,
    wake: () => options.nudge(),
    // The event is committed: the publisher's polling sends it. Only the latency suffers.
    wakeFailureMeans: "the nudge failed; the publisher's polling will send it (its outbox event is committed)",
  });
}
