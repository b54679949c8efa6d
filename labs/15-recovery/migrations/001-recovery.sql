-- Lesson 15: recovery, cancellation and failure isolation.
-- Portable subset: written for MySQL 8.4 and MariaDB 10.11 (see docs/mysql-and-mariadb.md).

-- Why a job is no longer run automatically: one row per failed job (the primary key makes
-- it at most one), written in the same transaction that moves the job to failed.
CREATE TABLE IF NOT EXISTS export_dead_letters (
  job_id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  -- A stable code: deadline_exceeded, attempts_exhausted.
  reason VARCHAR(64) NOT NULL,
  quarantined_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (job_id),
  CONSTRAINT export_dead_letter_job_fk FOREIGN KEY (job_id) REFERENCES export_jobs (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

-- A replay is a NEW job that names the failed one it repeats; the failed one is kept as it is.
ALTER TABLE export_jobs
  ADD COLUMN replay_of CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NULL,
  ADD CONSTRAINT export_jobs_replay_fk FOREIGN KEY (replay_of) REFERENCES export_jobs (id),
  -- When the job's wake-up last reached the broker: the publisher's confirm sets it in the
  -- same transaction as the event's sent_at, and the scanner's "dispatched but never
  -- claimed" pass reads it. NULL: never dispatched (or dispatched before this migration).
  ADD COLUMN last_dispatched_at DATETIME(6) NULL,
  -- The scanner's passes read their rows in a deterministic order and stop after a batch:
  -- running jobs whose lease has passed (status, lease_until, id), queued jobs whose next
  -- attempt has come (status, next_attempt_at, id), queued jobs oldest change first
  -- (status, updated_at, id). An index that matches the pass's ORDER BY lets it lock only
  -- what it takes; without one the scan locks every eligible row (measured for the outbox
  -- claim, docs/mysql-and-mariadb.md).
  ADD KEY export_jobs_status_lease (status, lease_until, id),
  ADD KEY export_jobs_status_next_attempt (status, next_attempt_at, id),
  ADD KEY export_jobs_status_updated (status, updated_at, id);
