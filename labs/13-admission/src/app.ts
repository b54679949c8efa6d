// Lesson 13's HTTP API: lesson 12's, with admission control on POST and one new route.
//
//   POST /exports    admitExport: the gate, the route and the job + event in ONE transaction.
//                    202 + Location only after the COMMIT; a full service: 503 +
//                    Retry-After; a client over its quota (Client-Id header, when a quota
//                    is set): 429 + Retry-After; the gate locked through every retry: 503.
//                    None of the refusals leaves a row behind.
//   GET  /exports/:id   as in lesson 11.
//   GET  /backlog    queued and running jobs per status and per queue, with the oldest
//                    age; unsent events per queue; the gate's counter.
import type { Express } from 'express';
import type { Pool } from 'mysql2/promise';
import { allowOnly, type ErrorTranslator } from '@tasks-lab/01-state-machine';
import { databaseDownReason } from '@tasks-lab/11-mysql-leases';
import { createApp as createOutboxApp } from '@tasks-lab/12-outbox';
import { admitExport, COURSE_RULES, type Admission, type AdmissionRules } from './admission.ts';
import { DatabaseUnreachableError, MAYBE_APPLIED } from './errors.ts';
import { readBacklog } from './backlog.ts';

/** The header that names a client for the per-client quota. */
export const CLIENT_ID_HEADER = 'Client-Id';

export interface AppOptions {
  /** The process's one pool. */
  pool: Pool;
  /** Tells the publisher that an event was committed (lesson 12's publishNudge). */
  nudge: () => Promise<unknown>;
  rules?: Partial<AdmissionRules>;
  /** How a submission is admitted. @defaultValue admitExport (the can-fail fixtures pass broken ones) */
  admit?: typeof admitExport;
  /** Every admission, after its COMMIT, with what the gate read under its lock. @defaultValue one log line */
  onAdmission?: (admission: Admission) => void;
  deadlineMs?: number;
  log?: (line: string) => void;
  /** Routes a later lesson adds (lesson 14's POST /schedule-slots), before the 404 handler. */
  routes?: (app: Express) => void;
}

/** "admitted job … to exports.fast: 3 of 5 active before it (counter gate)": the line each admission logs. */
export function describeAdmission(admission: Admission): string {
  const client =
    admission.clientActiveBefore === undefined
      ? ''
      : `, client ${admission.clientId} had ${admission.clientActiveBefore}`;
  const retried = admission.attempts > 1 ? `, after ${admission.attempts - 1} lock-wait retries` : '';
  return `admitted job ${admission.jobId} to ${admission.queueName}: ${admission.activeBefore} of ${admission.limit} active before it (${admission.design} gate${client}${retried})`;
}

/**
 * A database that does not answer, on ANY route, is a 503 with Retry-After. admitExport says so
 * for the submission's transaction; this covers the rest: the read of the row after the COMMIT
 * (the job is saved, but the answer cannot be built), GET /exports/:id, /backlog, a cancel. The
 * soak found the gap: with the database crashed between a COMMIT and that read, a submission
 * was answered 500 (docs/soak.md).
 */
export function unreachableAs503(retryAfterSeconds: number): ErrorTranslator {
  return (err) => {
    const reason = databaseDownReason(err);
    return reason ? new DatabaseUnreachableError(reason, retryAfterSeconds, err, MAYBE_APPLIED) : undefined;
  };
}

export function createApp(options: AppOptions): Express {
  const admit = options.admit ?? admitExport;
  const log = options.log ?? console.error;
  const onAdmission = options.onAdmission ?? ((admission: Admission) => console.log(describeAdmission(admission)));
  return createOutboxApp({
    pool: options.pool,
    nudge: options.nudge,
    deadlineMs: options.deadlineMs,
    log,
    translateError: unreachableAs503(options.rules?.retryAfterSeconds ?? COURSE_RULES.retryAfterSeconds),
    submit: async (pool, productIds, submitOptions, req) => {
      const onRetry = (attempt: number) =>
        log(
          `admission attempt ${attempt} met a locked gate (lock-wait timeout or deadlock): rolled back, trying again`,
        );
      const { idempotencyKey, deadlineMs } = submitOptions;
      const admitted = await admit(pool, productIds, {
        idempotencyKey,
        deadlineMs,
        rules: options.rules,
        clientId: req.get(CLIENT_ID_HEADER),
        onRetry,
      });
      if (admitted.admission) onAdmission(admitted.admission);
      return admitted;
    },
    routes: (app) => {
      app
        .route('/backlog')
        .get(async (_req, res) => {
          res.json(await readBacklog(options.pool));
        })
        .all(allowOnly('GET'));
      options.routes?.(app);
    },
  });
}
