// Every statement lesson 15's recovery, cancellation and replay run, by name. Each has a
// header: what it guarantees and what its row count means. `?` parameters only; durations
// in MICROSECONDS (TIMESTAMPADD(MICROSECOND, ?, NOW(6))); every instant is the SERVER's NOW(6).
//
// Lock order, everywhere: the job's row, then its outbox row(s), then the admission gate
// row (lesson 13's LEAVE_GATE, imported, never restated). The publisher's confirmation takes
// the same order (job, then outbox), so the scanner and the publisher never wait in a circle.
//
// The course's scan is ONE query: `WHERE <running expired> OR <queued to end> OR <queued
// unclaimed> ORDER BY updated_at, id LIMIT 50 FOR UPDATE SKIP LOCKED`. No index can deliver
// that ORDER BY for an OR of three conditions on different columns, so the server reads every
// eligible row, sorts them (EXPLAIN: "Using filesort") and LOCKS them all before it returns
// the first 50: a second scanner finds nothing, and a claim that meets a locked row skips it
// (docs/mysql-and-mariadb.md, measured for the outbox claim). Here the scan is three passes, each its own
// short transaction, each ordered by an index that starts with status and matches its ORDER BY
// (ending with the primary key, so the lock order is total): the server reads the index in
// order and stops after n rows, so a pass locks only what it takes.

/** The columns every pass locks and decides on. `past_deadline` is the server's answer, not the scanner's clock. */
const LOCKED_COLUMNS = `id, status, lease_token, attempts, cancel_requested, deadline_at <= NOW(6) AS past_deadline`;

/**
 * Pass a: running jobs whose lease has passed (their holder died, hung or lost the
 * lease), oldest expiry first. Index export_jobs_status_lease (status, lease_until, id):
 * status is one value, lease_until a range, the ORDER BY is the index's own order.
 * A live lease is never taken (lease_until < NOW(6)).
 * Rows returned: 0 to n, locked. Parameters: [n].
 */
export const LOCK_EXPIRED_LEASES = `
  SELECT ${LOCKED_COLUMNS}
  FROM export_jobs
  WHERE status = 'running' AND lease_until < NOW(6)
  ORDER BY lease_until, id
  LIMIT ?
  FOR UPDATE SKIP LOCKED`;

/**
 * Pass b: queued jobs that must end instead of running: cancel requested, deadline passed,
 * or no attempts left. Oldest change first. Index export_jobs_status_updated (status,
 * updated_at, id) (lesson 15's migration): the server walks the queued jobs in that order,
 * keeps the ones that match and stops after n. Rows returned: 0 to n, locked.
 * Parameters: [maxAttempts, n].
 */
export const LOCK_QUEUED_TO_END = `
  SELECT ${LOCKED_COLUMNS}
  FROM export_jobs
  WHERE status = 'queued'
    AND (cancel_requested = TRUE OR deadline_at <= NOW(6) OR attempts >= ?)
  ORDER BY updated_at, id
  LIMIT ?
  FOR UPDATE SKIP LOCKED`;

/**
 * Pass c: queued jobs that were dispatched but that no worker claimed (the message was
 * lost, or the worker died before its claim), with no unsent event waiting (so one scan
 * never piles a second event on the first), quiet for longer than the threshold. "Quiet"
 * is measured from the latest of: the last change, the next attempt's time, the last
 * dispatch (recorded by the publisher's confirmation; the course's fallback, the latest
 * sent_at of its events, covers a confirmation that did not record it), or the creation.
 * Oldest due first. Index export_jobs_status_next_attempt (status, next_attempt_at, id).
 * The subqueries read export_outbox WITHOUT locking it: only the selected job rows are locked.
 * Rows returned: 0 to n, locked. Parameters: [maxAttempts, thresholdMicros, n].
 */
export const LOCK_UNCLAIMED = `
  SELECT ${LOCKED_COLUMNS}
  FROM export_jobs j
  WHERE j.status = 'queued' AND j.next_attempt_at <= NOW(6)
    AND j.cancel_requested = FALSE AND j.deadline_at > NOW(6) AND j.attempts < ?
    AND NOT EXISTS (SELECT 1 FROM export_outbox pending WHERE pending.job_id = j.id AND pending.sent_at IS NULL)
    AND GREATEST(j.updated_at, j.next_attempt_at,
                 COALESCE(j.last_dispatched_at, (SELECT MAX(o.sent_at) FROM export_outbox o WHERE o.job_id = j.id), j.created_at))
        < TIMESTAMPADD(MICROSECOND, -?, NOW(6))
  ORDER BY j.next_attempt_at, j.id
  LIMIT ?
  FOR UPDATE SKIP LOCKED`;

/** Each pass's plan, for the index test ("Using filesort" must not appear). Parameters: as the pass's. */
export const EXPLAIN_EXPIRED_LEASES = `EXPLAIN ${LOCK_EXPIRED_LEASES}`;
export const EXPLAIN_QUEUED_TO_END = `EXPLAIN ${LOCK_QUEUED_TO_END}`;
export const EXPLAIN_UNCLAIMED = `EXPLAIN ${LOCK_UNCLAIMED}`;

/**
 * The course's schema for pass b: without this lesson's (status, updated_at, id) the server
 * sorts the queued jobs (EXPLAIN: "Using filesort") and locks every one that qualifies before it
 * returns the first n (lesson 12's USE_COURSE_CLAIM_INDEX is the same swap for the outbox).
 * The benchmarks' `pnpm bench:claims` (perf/) measures the pass with and without it; run it on a scratch database
 * only, never on the student's. Parameters: none.
 */
export const DROP_QUEUED_TO_END_INDEX = `
  ALTER TABLE export_jobs
    DROP INDEX export_jobs_status_updated`;

/**
 * An expired lease, retried: back to queued, no token, attempts KEPT (they count real
 * claims), claimable only after the backoff. running -> queued is the one edge recovery
 * adds to lesson 01's table. A CAS on what the pass read (status, token), on a row the
 * pass holds locked: 0 would mean the lock did not hold, and the batch rolls back.
 * Affected rows: 1. Parameters: [backoffMicros, id, leaseToken|null].
 */
export const REQUEUE_EXPIRED = `
  UPDATE export_jobs
  SET status = 'queued', lease_token = NULL, lease_until = NULL, error_code = 'lease_expired',
      next_attempt_at = TIMESTAMPADD(MICROSECOND, ?, NOW(6)), updated_at = NOW(6)
  WHERE id = ? AND status = 'running' AND lease_token <=> ? AND lease_until < NOW(6)`;

/**
 * A dispatch nobody claimed: the job stays queued with its attempts; the new event is its
 * new intent to wake a worker; updated_at restarts the quiet period.
 * Affected rows: 1. Parameters: [id, leaseToken|null].
 */
export const MARK_REDISPATCHED = `
  UPDATE export_jobs
  SET error_code = 'dispatch_overdue', updated_at = NOW(6)
  WHERE id = ? AND status = 'queued' AND lease_token <=> ?`;

/**
 * Ends a job, cancelled or failed, from the state the pass read. The token is cleared: an
 * old holder can neither continue nor finish (both compare it).
 * Affected rows: 1. Parameters: [to ('cancelled'|'failed'), errorCode, errorMessage, id, fromStatus, leaseToken|null].
 */
export const END_JOB = `
  UPDATE export_jobs
  SET status = ?, error_code = ?, error_message = ?, lease_token = NULL, lease_until = NULL, updated_at = NOW(6)
  WHERE id = ? AND status = ? AND lease_token <=> ?`;

/**
 * The job's route: the queue its FIRST event named (decided at admission by its row
 * count). A recovered fast job stays on exports.fast. Rows returned: 0 or 1. Parameters: [jobId].
 */
export const ROUTE_OF_JOB = `
  SELECT queue_name
  FROM export_outbox
  WHERE job_id = ?
  ORDER BY created_at, id
  LIMIT 1`;

/**
 * A recovery event, available when the job may next be claimed: the job's next_attempt_at
 * copied by the SERVER (a value read into JavaScript would lose its microseconds and make
 * the event available up to 1 ms before the claim may succeed), or now if that is past.
 * Two gates then hold the retry back: the event is not sent before, the claim refuses before.
 * Affected rows: 1. Parameters: [eventId, queueName, jobId].
 */
export const INSERT_RECOVERY_EVENT = `
  INSERT INTO export_outbox (id, job_id, queue_name, available_at)
  SELECT ?, j.id, ?, GREATEST(j.next_attempt_at, NOW(6))
  FROM export_jobs j
  WHERE j.id = ?`;

/** The job's next attempt, for the report. Rows returned: 0 or 1. Parameters: [jobId]. */
export const READ_NEXT_ATTEMPT = `
  SELECT next_attempt_at
  FROM export_jobs
  WHERE id = ?`;

// ---- cancel ----------------------------------------------------------------------

/**
 * The job's state, locked, before a cancel request decides (a repeat request changes no
 * field, so the affected-row count alone could not tell "already asked" from "no such
 * job": the course's warning). Rows returned: 0 or 1. Parameters: [jobId].
 */
export const LOCK_JOB_FOR_CANCEL = `
  SELECT status, cancel_requested
  FROM export_jobs
  WHERE id = ?
  FOR UPDATE`;

/**
 * The request to cancel: a durable wish the holder reads at its next chunk boundary (and
 * the finish refuses). Only an active job; a terminal one never moves back.
 * Affected rows: 1 = requested; 0 = not active, or already requested. Parameters: [jobId, activeStates].
 */
export const REQUEST_CANCEL = `
  UPDATE export_jobs
  SET cancel_requested = TRUE, updated_at = NOW(6)
  WHERE id = ? AND status IN (?) AND cancel_requested = FALSE`;

// ---- can continue ----------------------------------------------------------------

/**
 * The course's can_continue: is `token` still the holder, with a live lease, before the
 * deadline, and nobody asked to cancel? A plain read (one statement, no lock): the finish's
 * CAS repeats every condition, so a change right after this read still cannot publish.
 * Rows returned: 0 or 1. Parameters: [jobId, token].
 */
export const CAN_CONTINUE = `
  SELECT id
  FROM export_jobs
  WHERE id = ? AND lease_token = ? AND status = 'running'
    AND lease_until > NOW(6) AND deadline_at > NOW(6) AND cancel_requested = FALSE`;

// ---- replay ----------------------------------------------------------------------

/** The job a replay repeats: its state and snapshot. Rows returned: 0 or 1. Parameters: [jobId]. */
export const READ_REPLAY_SOURCE = `
  SELECT id, status, snapshot
  FROM export_jobs
  WHERE id = ?`;

/**
 * Links the replay's NEW job (its own uncommitted row, in the admission's transaction) to
 * the failed one. The old row is not touched: failed is terminal, and the foreign key
 * refuses a link to a job that does not exist.
 * Affected rows: 1. Parameters: [failedJobId, newJobId].
 */
export const SET_REPLAY_OF = `
  UPDATE export_jobs
  SET replay_of = ?
  WHERE id = ? AND replay_of IS NULL`;

/** Which job a job replays (NULL: none). Rows returned: 0 or 1. Parameters: [jobId]. */
export const READ_REPLAY_OF = `
  SELECT replay_of
  FROM export_jobs
  WHERE id = ?`;

// ---- the clock of the course's scripts, the drills and the tests (never the scanner's) -------
// The course's step 5 puts a job's next attempt ahead and step 6 ages a job as if it had been
// dispatched long ago; lessons 15 and 16's scenarios and tests do the same by these statements
// instead of waiting seconds or minutes.

/** The course's step 5: the next attempt `?` µs from now (0: due now). Affected rows: 1. Parameters: [micros, jobId]. */
export const SET_NEXT_ATTEMPT_AHEAD = `
  UPDATE export_jobs
  SET next_attempt_at = TIMESTAMPADD(MICROSECOND, ?, NOW(6))
  WHERE id = ?`;
/** The course's step 6, its events: sent `?` µs ago, no claim. Parameters: [micros, jobId]. */
export const MARK_EVENTS_SENT_AGO = `
  UPDATE export_outbox
  SET sent_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6)), claim_token = NULL, claimed_until = NULL
  WHERE job_id = ?`;
/** The course's step 6, its job: dispatched, changed and due `?` µs ago. Parameters: [micros, micros, micros, jobId]. */
export const MARK_JOB_DISPATCHED_AGO = `
  UPDATE export_jobs
  SET last_dispatched_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6)),
      updated_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6)),
      next_attempt_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6))
  WHERE id = ?`;
