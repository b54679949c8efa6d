// Every statement lesson 13 adds, by name. Each has a header: what it guarantees and what
// its row count means. `?` parameters only (an array becomes a list, for IN); ages come
// back in MICROSECONDS (TIMESTAMPDIFF(MICROSECOND, …) is a whole number on both servers,
// where a division would arrive as a DECIMAL string).
//
// Lock order, everywhere: a job's row first, then the gate row. The submission inserts
// its new job (and event) before it locks the gate in the lab's design; the finish
// updates the job, then the gate. One order means two transactions never wait on each
// other in a circle (no deadlock between a submission and a finish).

/** The active states: the ones the limit counts. Lesson 01's names, listed once here for the SQL. */
export const ACTIVE_STATES = ['queued', 'running'] as const;

/**
 * Locks the gate row and reads its counter. Every admission takes this lock, so
 * admissions happen one after another: the second waits (up to innodb_lock_wait_timeout,
 * then 1205) until the first commits or rolls back. Rows returned: 1 (0 = the migration
 * did not run). Parameters: none.
 */
export const LOCK_GATE = `
  SELECT active_jobs
  FROM export_admission_gate
  WHERE id = 1
  FOR UPDATE`;

/**
 * The course's count, run while the gate is locked: how many jobs are queued or running
 * now (READ COMMITTED: every admission that finished before we got the lock is counted).
 * The index export_jobs_status_created answers it; it still reads one entry per active
 * job, with the gate locked. Rows returned: 1. Parameters: [ACTIVE_STATES].
 */
export const COUNT_ACTIVE = `
  SELECT COUNT(*) AS n
  FROM export_jobs
  WHERE status IN (?)`;

/**
 * The per-client quota's count, run while the gate is locked (so two submissions of one
 * client are counted one after the other). Index: export_jobs_client_status.
 * Rows returned: 1. Parameters: [clientId, ACTIVE_STATES].
 */
export const COUNT_ACTIVE_OF_CLIENT = `
  SELECT COUNT(*) AS n
  FROM export_jobs
  WHERE client_id = ? AND status IN (?)`;

/** Names the job's client (its own new row, inside the admission). Affected rows: 1. Parameters: [clientId, jobId]. */
export const SET_CLIENT = `
  UPDATE export_jobs
  SET client_id = ?
  WHERE id = ?`;

/**
 * An entry: one more active job. Run under the gate's lock, in the admission's
 * transaction, so the counter and the job rows commit (or roll back) together.
 * Affected rows: 1. Parameters: none.
 */
export const ENTER_GATE = `
  UPDATE export_admission_gate
  SET active_jobs = active_jobs + 1
  WHERE id = 1`;

/**
 * An exit: a job left queued/running (lesson 13: a finish; lesson 15 adds cancel and
 * fail). Run in the SAME transaction as the job's change, after it (job row, then gate).
 * The CHECK (active_jobs >= 0) refuses an exit that had no entry.
 * Affected rows: 1. Parameters: none.
 */
export const LEAVE_GATE = `
  UPDATE export_admission_gate
  SET active_jobs = active_jobs - 1
  WHERE id = 1`;

/**
 * Lesson 11's FINISH and LEAVE_GATE as ONE statement (FINISH_FORM=one-statement): a multi-table
 * UPDATE that changes the job and the gate row together or not at all, with no transaction
 * around it. STRAIGHT_JOIN reads (and locks) the job's row first, then the gate's: the lock
 * order above. Both rows are found by their primary keys and locked before the conditions are
 * judged, so a finish that is refused (an old token) still takes the gate's lock for this one
 * statement, and changes nothing. The gate row is held for one statement instead of across a
 * round trip and a COMMIT. The CHECK (active_jobs >= 0) still refuses an exit that had no entry
 * (and the job's change with it: one statement).
 * Affected rows: 2 = published and left; 0 = not the holder any more (or the gate row is missing).
 * Parameters: [resultRef, id, statesThatMayMoveTo('succeeded'), token].
 */
export const FINISH_AND_LEAVE = `
  UPDATE export_jobs AS j
  STRAIGHT_JOIN export_admission_gate AS g ON g.id = 1
  SET j.status = 'succeeded', j.result_ref = ?, j.result_rows = JSON_LENGTH(j.snapshot),
      j.error_code = NULL, j.error_message = NULL, j.updated_at = NOW(6),
      g.active_jobs = g.active_jobs - 1
  WHERE j.id = ? AND j.status IN (?) AND j.lease_token = ?
    AND j.lease_until > NOW(6) AND j.deadline_at > NOW(6) AND j.cancel_requested = FALSE`;

/** The counter, without a lock (what monitoring and the checks read). Rows: 1. Parameters: none. */
export const READ_GATE = `
  SELECT active_jobs
  FROM export_admission_gate
  WHERE id = 1`;

/**
 * Backlog by status: how many jobs wait or run, and how long the oldest has been there
 * (the course's query, with the age in microseconds). Rows: one per active status that
 * has jobs. Parameters: [ACTIVE_STATES].
 */
export const BACKLOG_BY_STATUS = `
  SELECT status, COUNT(*) AS jobs,
         TIMESTAMPDIFF(MICROSECOND, MIN(created_at), NOW(6)) AS oldest_age_us
  FROM export_jobs
  WHERE status IN (?)
  GROUP BY status
  ORDER BY status`;

/**
 * Backlog by queue: the active jobs of each route (the route is on the job's events; a
 * job with several events is counted once). Rows: one per queue and status.
 * Parameters: [ACTIVE_STATES].
 */
export const BACKLOG_BY_QUEUE = `
  SELECT o.queue_name, j.status, COUNT(DISTINCT j.id) AS jobs,
         TIMESTAMPDIFF(MICROSECOND, MIN(j.created_at), NOW(6)) AS oldest_age_us
  FROM export_jobs j
  JOIN export_outbox o ON o.job_id = j.id
  WHERE j.status IN (?)
  GROUP BY o.queue_name, j.status
  ORDER BY o.queue_name, j.status`;

/**
 * Events not yet sent, per queue, and the oldest one's age (the course's second query):
 * an accepted job whose wake-up has not reached the broker is backlog too.
 * Rows: one per queue with unsent events. Parameters: none.
 */
export const UNPUBLISHED_BY_QUEUE = `
  SELECT queue_name, COUNT(*) AS events,
         TIMESTAMPDIFF(MICROSECOND, MIN(created_at), NOW(6)) AS oldest_age_us
  FROM export_outbox
  WHERE sent_at IS NULL
  GROUP BY queue_name
  ORDER BY queue_name`;

/**
 * Rows that should not exist: a job without any outbox event, or an event whose job is
 * missing (the foreign key makes the second impossible; it is asked anyway). Rows: 1.
 * Parameters: none.
 */
export const COUNT_ORPHANS = `
  SELECT
    (SELECT COUNT(*) FROM export_jobs j WHERE NOT EXISTS (SELECT 1 FROM export_outbox o WHERE o.job_id = j.id)) AS jobs_without_event,
    (SELECT COUNT(*) FROM export_outbox o WHERE NOT EXISTS (SELECT 1 FROM export_jobs j WHERE j.id = o.job_id)) AS events_without_job`;

// ---- group commit (src/admission-group.ts) --------------------------------------
// A group's INSERTs carry one row per admission; only the NUMBER of rows is put into the
// text (rowsOf), every value is a `?` parameter.

/** The placeholders of `count` rows of `row` (`(?, ?)` ...), joined for a multi-row VALUES. */
export const rowsOf = (count: number, row: string): string => Array.from({ length: count }, () => row).join(',\n    ');

/**
 * A group's jobs in one INSERT: lesson 11's INSERT_JOB for many rows at once, with lesson 13's
 * client (NULL for a request that named none) and, when `extraColumns` is more than 0, the
 * columns a later lesson writes with the job (a `??` identifier list, then one `?` per column
 * in each row). A key that is already taken fails the whole statement (1062, the unique key):
 * the group then runs alone, where the replay is found.
 * Affected rows: the group's size. Parameters: [the extra column names, if any], then per job:
 * [id, snapshot JSON, deadline in microseconds, Idempotency-Key or NULL, request digest or NULL,
 * clientId or NULL, each extra column's value].
 */
export const insertGroupJobs = (count: number, extraColumns = 0): string => `
  INSERT INTO export_jobs (id, snapshot, deadline_at, idempotency_key, request_digest, client_id${extraColumns > 0 ? ', ??' : ''})
  VALUES ${rowsOf(count, `(?, ?, TIMESTAMPADD(MICROSECOND, ?, NOW(6)), ?, ?, ?${', ?'.repeat(extraColumns)})`)}`;

/** Columns a later lesson writes on an admission's job (lesson 16's trace): names from the code, never from input. */
export type JobColumns = Readonly<Record<string, string | number | null>>;

/**
 * A later lesson's columns on an admission's new job, when it was admitted alone (a group writes
 * them in its INSERT). `SET ?` takes an object: mysql2 writes each key as an escaped identifier
 * and each value as a parameter. Affected rows: 1. Parameters: [{ column: value }, jobId].
 */
export const SET_JOB_COLUMNS = `
  UPDATE export_jobs
  SET ?
  WHERE id = ?`;

/** A group's outbox events in one INSERT (lesson 12's INSERT_EVENT, many rows). Parameters, per event: [id, jobId, queueName]. */
export const insertGroupEvents = (count: number): string => `
  INSERT INTO export_outbox (id, job_id, queue_name)
  VALUES ${rowsOf(count, '(?, ?, ?)')}`;

/**
 * A group's entry: as many more active jobs as the group admitted, under the gate's lock, in the
 * group's transaction. Affected rows: 1. Parameters: [admitted].
 */
export const ENTER_GATE_GROUP = `
  UPDATE export_admission_gate
  SET active_jobs = active_jobs + ?
  WHERE id = 1`;
