// Every statement lesson 11 runs against export_jobs and products, by name. Each has a
// header: what it guarantees, and what its affected-row count means. mysql2 reports
// MATCHED rows as affectedRows (it connects with CLIENT_FOUND_ROWS), so a conditional
// UPDATE that found its row says 1 even when the new values equal the old ones.
//
// All of them take `?` parameters (mysql2 escapes them; an array becomes a list, for IN).
// Durations arrive in MICROSECONDS: TIMESTAMPADD(MICROSECOND, ?, NOW(6)) runs on both
// MySQL and MariaDB, and a whole number of microseconds never needs rounding.
// Every timestamp is the SERVER's NOW(6): the workers' clocks never decide a lease.
//
// The state conditions of the claim and the finish are `status IN (?)` with the list from
// lesson 01's table (statesThatMayMoveTo('running'), statesThatMayMoveTo('succeeded')),
// passed by leases.ts: the state machine lives in ALLOWED_TRANSITIONS only.

/**
 * The products of one export, read for the snapshot. A plain read (no lock): the snapshot
 * is whatever was committed when the statement started. Parameters: [ids].
 */
export const READ_PRODUCTS = `
  SELECT id, name, description, is_active, price_cents
  FROM products
  WHERE id IN (?)`;

/**
 * The job that was submitted with this Idempotency-Key, if any (the unique key makes it
 * at most one). Parameters: [idempotencyKey].
 */
export const FIND_BY_IDEMPOTENCY_KEY = `
  SELECT id, request_digest
  FROM export_jobs
  WHERE idempotency_key = ?`;

/**
 * A new queued job with its frozen snapshot; the deadline is counted from the server's
 * clock. A second row with the same idempotency_key fails with 1062 (duplicate entry).
 * Affected rows: 1. Parameters: [id, snapshotJson, deadlineMicros, idempotencyKey|null, requestDigest|null].
 */
export const INSERT_JOB = `
  INSERT INTO export_jobs (id, snapshot, deadline_at, idempotency_key, request_digest)
  VALUES (?, ?, TIMESTAMPADD(MICROSECOND, ?, NOW(6)), ?, ?)`;

/**
 * The claim's first half: locks the job's row if, and only if, it may be claimed now:
 * queued, not cancelled, attempts left, deadline ahead, next attempt due. SKIP LOCKED:
 * a row another transaction is claiming right now is skipped at once instead of waited
 * for, so that claimer gets no row (which says "not now", not "no such job").
 * Rows returned: 0 or 1. Parameters: [id, statesThatMayMoveTo('running'), maxAttempts].
 */
export const LOCK_CLAIMABLE = `
  SELECT id
  FROM export_jobs
  WHERE id = ? AND status IN (?) AND cancel_requested = FALSE
    AND attempts < ? AND deadline_at > NOW(6) AND next_attempt_at <= NOW(6)
  FOR UPDATE SKIP LOCKED`;

/**
 * The claim's second half, in the same transaction: the conditional update (compare and
 * set) that makes the caller the holder: running, one more attempt, a new token, a lease
 * until now + leaseMs. It repeats every condition, so it is safe even on its own.
 * Affected rows: 1 = claimed; 0 = the conditions no longer hold (nothing changed).
 * Parameters: [token, leaseMicros, id, statesThatMayMoveTo('running'), maxAttempts].
 */
export const CLAIM = `
  UPDATE export_jobs
  SET status = 'running', attempts = attempts + 1, lease_token = ?,
      lease_until = TIMESTAMPADD(MICROSECOND, ?, NOW(6)), error_code = NULL, updated_at = NOW(6)
  WHERE id = ? AND status IN (?) AND cancel_requested = FALSE
    AND attempts < ? AND deadline_at > NOW(6) AND next_attempt_at <= NOW(6)`;

/**
 * Publishes the result, only for the current holder: running, the same token, a live
 * lease, the deadline ahead, not cancelled. An old holder (its lease passed, or a new
 * token was issued) matches no row and changes nothing.
 * Affected rows: 1 = published; 0 = not the holder any more (or the job is gone/finished).
 * Parameters: [resultRef, id, statesThatMayMoveTo('succeeded'), token].
 */
export const FINISH = `
  UPDATE export_jobs
  SET status = 'succeeded', result_ref = ?, result_rows = JSON_LENGTH(snapshot),
      error_code = NULL, error_message = NULL, updated_at = NOW(6)
  WHERE id = ? AND status IN (?) AND lease_token = ?
    AND lease_until > NOW(6) AND deadline_at > NOW(6) AND cancel_requested = FALSE`;

/**
 * The course's manual recovery step (lesson 15 turns it into a scanner). Note that running
 * -> queued is NOT in lesson 01's table, which the API and the store keep: it is the one
 * edge recovery adds, taken only when the holder's lease has passed, and it keeps attempts.
 * A running job
 * whose lease has passed goes back to queued, without a token, claimable after the
 * backoff. attempts is kept: it counts real claims.
 * Affected rows: 1 = requeued; 0 = not running, or its lease is still live.
 * Parameters: [backoffMicros, id].
 */
export const REQUEUE_EXPIRED_LEASE = `
  UPDATE export_jobs
  SET status = 'queued', lease_token = NULL, lease_until = NULL,
      next_attempt_at = TIMESTAMPADD(MICROSECOND, ?, NOW(6)), updated_at = NOW(6)
  WHERE id = ? AND status = 'running' AND lease_until < NOW(6)`;

/** The whole record of one job. Rows returned: 0 or 1. Parameters: [id]. */
export const READ_JOB = `
  SELECT id, status, attempts, lease_token, lease_until, next_attempt_at, deadline_at,
         cancel_requested, snapshot, result_ref, result_rows, error_code, error_message,
         created_at, updated_at
  FROM export_jobs
  WHERE id = ?`;

/**
 * The store contract's move (lesson 01's JobStore.transition), checked and written in ONE
 * statement: the row moves only if its current status is one the state machine allows
 * to move to the new one (the list comes from statesThatMayMoveTo, never restated here).
 * A patch value of NULL keeps the stored one.
 * Affected rows: 1 = moved; 0 = no such job, or the move is not allowed from its state.
 * Parameters: [to, resultRows|null, errorMessage|null, id, allowedFromStates].
 */
export const TRANSITION = `
  UPDATE export_jobs
  SET status = ?, result_rows = COALESCE(?, result_rows), error_message = COALESCE(?, error_message),
      updated_at = NOW(6)
  WHERE id = ? AND status IN (?)`;

/** How many jobs there are. Parameters: none. */
export const COUNT_JOBS = `SELECT COUNT(*) AS n FROM export_jobs`;

/** How many jobs are in one state (the status index answers it). Parameters: [status]. */
export const COUNT_JOBS_IN_STATE = `SELECT COUNT(*) AS n FROM export_jobs WHERE status = ?`;

/**
 * The tests' and drills' clock, never the workers': a running job's lease, ended 1 ms ago, as
 * if its holder had stopped renewing. A test that needs a lease to be live first and passed
 * later claims with a long lease and runs this, instead of a short lease and a sleep: on a
 * loaded machine a short lease can pass before the test's "still live" step.
 * Affected rows: 1 while the job runs; 0 otherwise. Parameters: [jobId].
 */
export const EXPIRE_LEASE = `
  UPDATE export_jobs SET lease_until = TIMESTAMPADD(MICROSECOND, -1000, NOW(6))
  WHERE id = ? AND status = 'running'`;

/**
 * The tests' clock, as EXPIRE_LEASE: a running job's deadline, passed 1 ms ago (its lease still
 * live). Affected rows: 1 while the job runs; 0 otherwise. Parameters: [jobId].
 */
export const PASS_DEADLINE = `
  UPDATE export_jobs SET deadline_at = TIMESTAMPADD(MICROSECOND, -1000, NOW(6))
  WHERE id = ? AND status = 'running'`;
