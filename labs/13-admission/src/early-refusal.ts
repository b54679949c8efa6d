// Lesson 13's early refusal: when the service is full, say so before doing any work.
//
// The course decides every refusal under the gate's lock, so a refused POST costs what an
// admitted one costs up to its last step: the body parsed, a connection, a transaction, the
// snapshot read, the job and its event inserted (the lab's counter gate), a wait in line for
// the gate's row lock, then a rollback. At saturation the refusals queue for the same lock as
// the admissions and slow them down.
//
// The early refusal reads the gate's counter WITHOUT the lock (one statement, no transaction,
// before the body is read) and answers 503 at once when it already says "full". It never
// admits: a POST that passes it still goes through the gate under the lock, which decides. So
// the promise (at every commit, at most the limit queued or running) is exactly the gate's.
// What an unlocked read can do is see the counter a moment late:
//   - it says "full" just before a job leaves the gate: the client gets the 503 it would have
//     had a moment earlier, with the same Retry-After;
//   - it says "not full" just before the last place is taken: the POST goes on to the gate,
//     which refuses it under the lock, as the course's does.
// A request with an Idempotency-Key skips it: its key may name a job admitted earlier, and a
// retried request must get that job back whatever the gate says (lesson 11's replay).
import type { RequestHandler } from 'express';
import type { Pool } from 'mysql2/promise';
import { IDEMPOTENCY_KEY_HEADER } from '@tasks-lab/11-mysql-leases';
import { CapacityExceededError, unreachableOr } from './errors.ts';
import { readGateCounter } from './gate.ts';

/** What the early refusal needs of lesson 13's rules. */
export interface EarlyRefusalRules {
  admissionLimit: number;
  retryAfterSeconds: number;
  /** 'on' or 'off' (ADMISSION_EARLY_REFUSAL). */
  earlyRefusal: string;
}

/**
 * Throws lesson 13's 503 capacity-exceeded when the gate's counter, read without its lock, is at
 * the limit; a database that does not answer is 503 database-unavailable, saying that nothing
 * was accepted (nothing was attempted yet).
 */
export async function refuseEarlyWhenFull(pool: Pool, rules: EarlyRefusalRules): Promise<void> {
  const active = await readGateCounter(pool).catch((err: unknown) => {
    throw unreachableOr(err, rules.retryAfterSeconds);
  });
  if (active >= rules.admissionLimit)
    throw new CapacityExceededError(rules.admissionLimit, active, rules.retryAfterSeconds);
}

/**
 * POST /exports's step before the body (lesson 11's `beforeBody`): with `earlyRefusal: 'on'`,
 * a request without an Idempotency-Key meets `refuse` first. A thrown refusal reaches lesson
 * 01's error middleware like any other: a 503 JSON answer with Retry-After.
 */
export function earlyRefusalStep(
  pool: Pool,
  rules: EarlyRefusalRules,
  refuse: typeof refuseEarlyWhenFull = refuseEarlyWhenFull,
): RequestHandler {
  return async (req, _res, next) => {
    if (rules.earlyRefusal === 'on' && req.get(IDEMPOTENCY_KEY_HEADER) === undefined) await refuse(pool, rules);
    next();
  };
}
