// Lesson 13's HTTP API: lesson 12's, with admission control on POST and one new route.
//
//   POST /exports    a full service is refused first, before the body is read and without
//                    the gate's lock (src/early-refusal.ts; ADMISSION_EARLY_REFUSAL=off: the
//                    course's, every refusal under the lock). Then admitExport: the gate, the
//                    route and the job + event in ONE transaction (shared with the requests
//                    that arrive at the same moment: src/admission-group.ts).
//                    202 + Location only after the COMMIT; a full service: 503 +
//                    Retry-After; a client over its quota (Client-Id header, when a quota
//                    is set): 429 + Retry-After; the gate locked through every retry: 503.
//                    None of the refusals leaves a row behind.
//   GET  /exports/:id   as in lesson 11.
//   GET  /backlog    queued and running jobs per status and per queue, with the oldest
//                    age; unsent events per queue; the gate's counter.
import type { Express } from 'express';
import type { Pool } from 'mysql2/promise';
import { allowOnly } from '@tasks-lab/01-state-machine';
import { createApp as createOutboxApp } from '@tasks-lab/12-outbox';
import {
  admitExport,
  CLIENT_ID_HEADER,
  COURSE_RULES,
  describeAdmission,
  type Admission,
  type AdmissionRules,
} from './admission.ts';
import { earlyRefusalStep, type refuseEarlyWhenFull } from './early-refusal.ts';
import { unreachableAs503 } from './errors.ts';
import { readBacklog } from './backlog.ts';

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
  /** How a full service is refused before the body (rules.earlyRefusal 'on'). @defaultValue refuseEarlyWhenFull (the can-fail fixtures pass broken ones) */
  refuseEarly?: typeof refuseEarlyWhenFull;
  deadlineMs?: number;
  log?: (line: string) => void;
  /** Routes a later lesson adds (lesson 14's POST /schedule-slots), before the 404 handler. */
  routes?: (app: Express) => void;
}

export function createApp(options: AppOptions): Express {
  const admit = options.admit ?? admitExport;
  const log = options.log ?? console.error;
  const onAdmission = options.onAdmission ?? ((admission: Admission) => console.log(describeAdmission(admission)));
  const rules = { ...COURSE_RULES, ...options.rules };
  return createOutboxApp({
    pool: options.pool,
    nudge: options.nudge,
    deadlineMs: options.deadlineMs,
    log,
    translateError: unreachableAs503(rules.retryAfterSeconds),
    beforeBody: earlyRefusalStep(options.pool, rules, options.refuseEarly),
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
