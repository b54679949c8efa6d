// Every statement lesson 12 runs against export_outbox, by name. Each has a header: what
// it guarantees, and what its affected-row count means (mysql2 reports MATCHED rows as
// affectedRows, so a conditional UPDATE that found its row says 1).
//
// As in lesson 11: `?` parameters only; durations in MICROSECONDS through
// TIMESTAMPADD(MICROSECOND, ?, NOW(6)); every instant is the SERVER's NOW(6), so the
// publishers' clocks never decide whether a claim has passed.

/**
 * The submission's second insert, in the SAME transaction as the job's (the foreign key
 * needs the job row first; both commit together or neither does). Unsent, unclaimed,
 * available at once. Affected rows: 1. Parameters: [eventId, jobId, queueName].
 */
export const INSERT_EVENT = `
  INSERT INTO export_outbox (id, job_id, queue_name)
  VALUES (?, ?, ?)`;

/**
 * The first event of a job: what an idempotent replay of a submission answers with.
 * Rows returned: 0 or 1. Parameters: [jobId].
 */
export const FIRST_EVENT_OF_JOB = `
  SELECT id
  FROM export_outbox
  WHERE job_id = ?
  ORDER BY created_at, id
  LIMIT 1`;

/**
 * The claim's first half: locks up to n events that may be sent now (not sent, available,
 * not under a live claim), oldest first, ending the ORDER BY with the primary key so the
 * lock order is total. SKIP LOCKED: an event another publisher is claiming right now is
 * skipped, not waited for, so two publishers take different events at the same time.
 * With the index export_outbox_claim (sent_at, created_at, id) the server reads the rows
 * in this order and stops after n: it locks only what it returns.
 * Rows returned: 0 to n. Parameters: [n].
 */
export const LOCK_CLAIMABLE_EVENTS = `
  SELECT id
  FROM export_outbox
  WHERE sent_at IS NULL AND available_at <= NOW(6)
    AND (claimed_until IS NULL OR claimed_until < NOW(6))
  ORDER BY created_at, id
  LIMIT ?
  FOR UPDATE SKIP LOCKED`;

/**
 * The claim's second half, in the same transaction: one token for the batch, a claim
 * until now + claimMs, one more send attempt. It repeats the conditions, so it is safe
 * even on its own. Affected rows: how many of the ids were claimed (all of them while the
 * locks are held). Parameters: [token, claimMicros, ids].
 */
export const CLAIM_EVENTS = `
  UPDATE export_outbox
  SET claim_token = ?, claimed_until = TIMESTAMPADD(MICROSECOND, ?, NOW(6)), send_attempts = send_attempts + 1
  WHERE id IN (?) AND sent_at IS NULL AND available_at <= NOW(6)
    AND (claimed_until IS NULL OR claimed_until < NOW(6))`;

/**
 * The events one claim took (by primary key, with its token), oldest first.
 * Rows returned: the claimed events. Parameters: [ids, token].
 */
export const READ_CLAIMED_EVENTS = `
  SELECT id, job_id, queue_name, send_attempts, claimed_until
  FROM export_outbox
  WHERE id IN (?) AND claim_token = ?
  ORDER BY created_at, id`;

/**
 * Marks an event sent, only for the publisher that still holds a live claim on it, and
 * only after the broker accepted the message. A publisher whose claim passed (another
 * one may be sending the event now) matches no row and changes nothing.
 * Affected rows: 1 = confirmed; 0 = not the holder any more, the claim passed, or already sent.
 * Parameters: [eventId, token].
 */
export const CONFIRM_SENT = `
  UPDATE export_outbox
  SET sent_at = NOW(6), claimed_until = NULL, last_error = NULL
  WHERE id = ? AND claim_token = ? AND sent_at IS NULL AND claimed_until > NOW(6)`;

/**
 * CONFIRM_SENT for a whole round: the events of one claim (one token) that the broker
 * accepted, in one statement. The same conditions, judged per row: an event whose claim
 * passed, or that another publisher now holds, matches nothing and stays unsent.
 * Affected rows: the events confirmed (fewer than the ids: read back which, with
 * READ_CONFIRMED_EVENTS). Parameters: [eventIds, token].
 */
export const CONFIRM_SENT_EVENTS = `
  UPDATE export_outbox
  SET sent_at = NOW(6), claimed_until = NULL, last_error = NULL
  WHERE id IN (?) AND claim_token = ? AND sent_at IS NULL AND claimed_until > NOW(6)`;

/**
 * Which of a round's events its confirmation confirmed: sent, still under the round's token
 * (a claim is a fresh token, and an event that is sent is never claimed again, so only this
 * round's confirmation can have set sent_at under it). Parameters: [eventIds, token].
 */
export const READ_CONFIRMED_EVENTS = `
  SELECT id
  FROM export_outbox
  WHERE id IN (?) AND claim_token = ? AND sent_at IS NOT NULL`;

/**
 * Gives back an event whose send FAILED (the broker refused it or did not answer within
 * the bound): no claim, available again after the retry delay, the reason kept. Only the
 * holder may release it, and never once it is sent.
 * Affected rows: 1 = released; 0 = not the holder any more, or already sent.
 * Parameters: [retryDelayMicros, lastError, eventId, token].
 */
export const RELEASE_FAILED = `
  UPDATE export_outbox
  SET claim_token = NULL, claimed_until = NULL,
      available_at = TIMESTAMPADD(MICROSECOND, ?, NOW(6)), last_error = ?
  WHERE id = ? AND claim_token = ? AND sent_at IS NULL`;

/** One event's whole row. Rows returned: 0 or 1. Parameters: [eventId]. */
export const READ_EVENT = `
  SELECT id, job_id, queue_name, created_at, available_at, claim_token, claimed_until,
         sent_at, send_attempts, last_error
  FROM export_outbox
  WHERE id = ?`;

/** A job's events, oldest first. Parameters: [jobId]. */
export const READ_EVENTS_OF_JOB = `
  SELECT id, job_id, queue_name, created_at, available_at, claim_token, claimed_until,
         sent_at, send_attempts, last_error
  FROM export_outbox
  WHERE job_id = ?
  ORDER BY created_at, id`;

/** How many rows a job has in each table: the atomic-submit check counts both. Parameters: [jobId, jobId]. */
export const COUNT_JOB_AND_EVENTS = `
  SELECT (SELECT COUNT(*) FROM export_jobs WHERE id = ?) AS jobs,
         (SELECT COUNT(*) FROM export_outbox WHERE job_id = ?) AS events`;

/** How many events are not sent yet. Parameters: none. */
export const COUNT_UNSENT = `SELECT COUNT(*) AS n FROM export_outbox WHERE sent_at IS NULL`;

// ---- the index finding -----------------------------------------------------------
// The course indexes the claim with (sent_at, available_at, created_at). Its ORDER BY is
// created_at, id, which that index cannot deliver once available_at is a range: the
// server sorts (EXPLAIN: "Using filesort"), and to sort it reads and LOCKS every
// eligible row before returning the first n. The migration's index matches the ORDER BY.
// These two statements swap one for the other in a scratch database, so the check can
// measure both (never run them on the student's database).

/** The course's claim index instead of ours. Parameters: none. */
export const USE_COURSE_CLAIM_INDEX = `
  ALTER TABLE export_outbox
    DROP INDEX export_outbox_claim,
    ADD KEY export_outbox_pending (sent_at, available_at, created_at)`;

/** Back to the index that matches the claim's ORDER BY (the migration's). Parameters: none. */
export const USE_MATCHING_CLAIM_INDEX = `
  ALTER TABLE export_outbox
    DROP INDEX export_outbox_pending,
    ADD KEY export_outbox_claim (sent_at, created_at, id)`;

/** The claim's plan, for the observation ("Using filesort" or not). Parameters: [n]. */
export const EXPLAIN_CLAIM = `EXPLAIN ${LOCK_CLAIMABLE_EVENTS}`;
