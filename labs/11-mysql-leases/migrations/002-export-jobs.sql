-- Lesson 11: the export job record moves into MySQL. From here on this table, not Redis,
-- answers "did my export succeed?": BullMQ only wakes a worker with a job id.
-- Portable subset: written for MySQL 8.4 and MariaDB 10.11 (see docs/mysql-and-mariadb.md).

CREATE TABLE IF NOT EXISTS export_jobs (
  -- A UUID in ASCII with a binary collation: compared byte for byte, 36 bytes per key.
  id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  status VARCHAR(16) NOT NULL DEFAULT 'queued',
  -- The products as they were at submission (id, name, description, is_active,
  -- price_cents), in the order the client asked for them: every attempt exports the same rows.
  snapshot JSON NOT NULL,
  -- How many times a worker claimed the job. Never reset: it counts real claims.
  attempts INT NOT NULL DEFAULT 0,
  -- The current holder's token and until when it holds the job. A holder that lost its
  -- lease can no longer finish: finish compares the token.
  lease_token CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NULL,
  lease_until DATETIME(6) NULL,
  -- No claim before this instant: a duplicate delivery that arrives early claims nothing.
  next_attempt_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
  -- The business deadline: nothing publishes after it, whatever the lease says.
  deadline_at DATETIME(6) NOT NULL,
  -- Where the published artifact is (its name carries the token that wrote it).
  result_ref VARCHAR(1024) NULL,
  -- How many product rows the published artifact holds (lesson 01's result.rows).
  result_rows INT NULL,
  -- A stable error code (lesson 10's 'deadline-exceeded' ...) and, for people, a sentence.
  error_code VARCHAR(64) NULL,
  error_message VARCHAR(500) NULL,
  -- Submission with an Idempotency-Key: a retry with the same key and the same request
  -- finds this row instead of inserting a second one; request_digest tells "the same
  -- request" (sha256 of the product ids) from "the same key reused for another request".
  idempotency_key VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NULL,
  request_digest CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
  created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (id),
  CONSTRAINT export_jobs_status_check CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  CONSTRAINT export_jobs_attempts_check CHECK (attempts >= 0),
  -- A key names one request: two rows can never share one (NULLs, no key, do not collide).
  UNIQUE KEY export_jobs_idempotency_key (idempotency_key),
  -- Listing jobs of one state, oldest first; ends with the primary key so the order is total.
  KEY export_jobs_status_created (status, created_at, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
