-- Lesson 15: recovery, cancellation and failure isolation.
-- Portable subset: runs on MariaDB 10.6+ and MySQL 8.0+ (see the notes on SQL dialects).

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
  -- The scanner's queued-job passes read queued rows oldest change first and stop after a
  -- batch: an index matching that ORDER BY lets them lock only what they take (the notes'
  -- finding for the outbox claim; lesson 11's (status, lease_until, id) serves the lease pass).
  ADD KEY export_jobs_status_updated (status, updated_at, id);
