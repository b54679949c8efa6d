-- Lesson 13: admission control. One fixed row serialises every admission: a submission
-- locks it, checks how many jobs are queued or running against the limit, and inserts
-- the job and its event, all in one transaction. Two submissions can never both see
-- "one place left" and both get in, because the second waits for the first's lock.
-- Portable subset: written for MySQL 8.4 and MariaDB 10.11 (see docs/mysql-and-mariadb.md).

CREATE TABLE IF NOT EXISTS export_admission_gate (
  id TINYINT NOT NULL,
  -- How many jobs are queued or running, kept by every entry (+1, at admission) and every
  -- exit (-1, when a job leaves queued/running) under this row's lock, in the same
  -- transaction as the job's change. The course's gate COUNTs the jobs instead; the lab's
  -- faster gate reads this number (docs/13-admission.md has both, measured).
  active_jobs INT NOT NULL DEFAULT 0,
  PRIMARY KEY (id),
  CONSTRAINT export_admission_singleton CHECK (id = 1),
  -- An exit without its entry would make it negative: a bug, refused by the server.
  CONSTRAINT export_admission_active_check CHECK (active_jobs >= 0)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

-- The one row, starting from the jobs already there (a database migrated from an earlier
-- lab may hold some): the counter and the table agree from the first admission on.
INSERT INTO export_admission_gate (id, active_jobs)
SELECT 1, COUNT(*) FROM export_jobs WHERE status IN ('queued', 'running');

-- The route is decided at admission (<= 30 product rows: exports.fast, more: exports.bulk)
-- and kept on the event, so a resend still knows where to go. Older events had one queue.
UPDATE export_outbox SET queue_name = 'exports.bulk' WHERE queue_name NOT IN ('exports.fast', 'exports.bulk');
ALTER TABLE export_outbox
  ADD CONSTRAINT export_outbox_queue_check CHECK (queue_name IN ('exports.fast', 'exports.bulk'));

-- Who asked: the per-client quota (off by default) counts a client's queued and running
-- jobs. A client is named by the Client-Id header; without one it is 'anonymous'.
ALTER TABLE export_jobs
  ADD COLUMN client_id VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
  ADD KEY export_jobs_client_status (client_id, status);
