// Lesson 13's answers to a submission that is not accepted. Each one is an AppError
// (lesson 01's one error class), so the one error middleware turns it into JSON with its
// status and headers; none of them creates a job: each is thrown inside the admission's
// transaction, which rolls back, or before it starts.
import { AppError, type ErrorTranslator } from '@tasks-lab/01-state-machine';
import { databaseDownReason, ER_LOCK_WAIT_TIMEOUT, errnoOf } from '@tasks-lab/11-mysql-leases';
import { sleep } from '@tasks-lab/lab-kit';

const retryAfter = (seconds: number) => ({ 'Retry-After': String(seconds) });

/** MySQL's lock conflicts that say "run the whole transaction again", never "your request is wrong". */
const DEADLOCK = 1213;
export const isLockConflict = (err: unknown) => errnoOf(err) === ER_LOCK_WAIT_TIMEOUT || errnoOf(err) === DEADLOCK;

/** Before an admission runs again after a lock conflict: a short, growing, jittered pause, so the holders that made it wait get to commit. */
export const pauseAfterLockConflict = (attempt: number): Promise<void> => sleep(attempt * (20 + Math.random() * 30));

/**
 * A database that does not answer, inside an admission (or before one): lesson 13's 503
 * database-unavailable, saying that nothing was accepted. Any other error comes back as it is.
 */
export function unreachableOr(err: unknown, retryAfterSeconds: number): unknown {
  const reason = databaseDownReason(err);
  return reason ? new DatabaseUnreachableError(reason, retryAfterSeconds, err) : err;
}

/** The whole service is full: 503 + Retry-After (the course's answer). Not the client's fault: try later. */
export class CapacityExceededError extends AppError {
  constructor(
    readonly limit: number,
    readonly active: number,
    retryAfterSeconds: number,
  ) {
    super(
      'capacity-exceeded',
      `The export service is full (${active} of ${limit} jobs queued or running); try again in ${retryAfterSeconds} s`,
      503,
      {
        headers: retryAfter(retryAfterSeconds),
      },
    );
  }
}

/** This client has as many jobs waiting or running as its quota allows: 429 + Retry-After. */
export class ClientQuotaExceededError extends AppError {
  constructor(
    readonly clientId: string,
    readonly quota: number,
    retryAfterSeconds: number,
  ) {
    super(
      'client-quota-exceeded',
      `Client ${clientId} already has ${quota} exports queued or running (its quota); try again in ${retryAfterSeconds} s`,
      429,
      {
        headers: retryAfter(retryAfterSeconds),
      },
    );
  }
}

/**
 * The gate stayed locked through every retry (lock-wait timeouts or deadlocks): 503 +
 * Retry-After. Every attempt rolled back, so nothing was created.
 */
export class AdmissionBusyError extends AppError {
  constructor(attempts: number, retryAfterSeconds: number) {
    super(
      'admission-busy',
      `The admission gate stayed busy through ${attempts} attempts; nothing was created, try again in ${retryAfterSeconds} s`,
      503,
      {
        headers: retryAfter(retryAfterSeconds),
      },
    );
  }
}

/** What a 503 database-unavailable says happened to the request. */
export const NOT_ACCEPTED = 'the request was not accepted';
/**
 * Any other route, or the read after a submission's COMMIT: the job may exist. Repeating the
 * request is safe: a read changes nothing, a cancel asked twice is asked once, and a POST /exports
 * with the same Idempotency-Key finds the job its first try committed.
 */
export const MAYBE_APPLIED =
  'it may or may not have been applied; repeat it (with the same Idempotency-Key, for a submission)';

/** The database did not answer (refused, dropped, timed out): 503, never a 500 with a driver message. */
export class DatabaseUnreachableError extends AppError {
  constructor(reason: string, retryAfterSeconds: number, cause?: unknown, outcome: string = NOT_ACCEPTED) {
    super(
      'database-unavailable',
      `The job database is not reachable (${reason}); ${outcome}, try again in ${retryAfterSeconds} s`,
      503,
      {
        headers: retryAfter(retryAfterSeconds),
        cause,
      },
    );
  }
}

/** A Client-Id header that is not a name: 400 (it becomes a column value, so it is checked first). */
export class InvalidClientIdError extends AppError {
  constructor() {
    super('invalid-client-id', 'A Client-Id is 1 to 64 letters, digits, ".", "_" or "-"', 400);
  }
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
