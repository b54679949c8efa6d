// Lesson 11's errors. Submission errors extend lesson 01's AppError, so the HTTP layer's
// error middleware answers them with their status (4xx) and stable code.
import { AppError } from '@tasks-lab/01-state-machine';
import { CodedError } from '@tasks-lab/lab-kit';

/** The product ids are not 1-100 distinct positive whole numbers. */
export class InvalidProductIdsError extends AppError {
  constructor(message: string) {
    super('invalid-product-ids', message, 422);
  }
}

/** Some of the requested products do not exist: no job is created. */
export class MissingProductsError extends AppError {
  constructor(readonly missingIds: readonly number[]) {
    super('missing-products', `No product with id ${missingIds.join(', ')}: nothing was submitted`, 422);
  }
}

/** The Idempotency-Key was used before for a different request (other product ids). */
export class IdempotencyKeyReusedError extends AppError {
  constructor(
    readonly idempotencyKey: string,
    readonly existingJobId: string,
  ) {
    super(
      'idempotency-key-reused',
      'This Idempotency-Key was already used for a different request; send a new key for a new export',
      409,
    );
  }
}

/** An Idempotency-Key that is empty, too long, or not printable ASCII. */
export class InvalidIdempotencyKeyError extends AppError {
  constructor() {
    super('invalid-idempotency-key', 'An Idempotency-Key is 1 to 128 printable ASCII characters', 400);
  }
}

/** The lab's database could not be opened. The message never holds a user name or password. */
export class DatabaseUnavailableError extends CodedError {
  constructor(
    readonly database: string,
    readonly reason: string,
  ) {
    super(
      'database-unavailable',
      `could not open database ${database} (${reason}); \`pnpm infra:status\` checks the services`,
    );
  }
}

/**
 * A query got no answer within DB_QUERY_TIMEOUT_MS, and the connection it ran on was closed
 * (query-timeout.ts's boundEveryQuery). Whether the statement took effect is unknown: a statement
 * inside a transaction is rolled back when the server reads the close, but a COMMIT or an
 * autocommit UPDATE the server had already read still applies. Read the row before repeating it.
 *
 * It keeps mysql2's own code, PROTOCOL_SEQUENCE_TIMEOUT, instead of a kebab-case one of ours:
 * code that reads mysql2's codes (lesson 13 answers a lost answer with a 503) sees it as what
 * it is. mysql2's message, "Query inactivity timeout", is replaced: its timer runs from the
 * moment the query is sent, whatever arrives meanwhile; it does not measure inactivity.
 */
export class QueryTimeoutError extends Error {
  readonly code = 'PROTOCOL_SEQUENCE_TIMEOUT';

  constructor(readonly timeoutMs: number) {
    super(
      `the database gave no answer within ${timeoutMs} ms (DB_QUERY_TIMEOUT_MS); the connection was closed, ` +
        'so the statement may or may not have taken effect: read the row before repeating it',
    );
    this.name = 'QueryTimeoutError';
  }
}
