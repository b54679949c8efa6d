-- Lesson 12: the transactional outbox. A submission writes its job (lesson 11's
-- export_jobs) AND one row here in the same transaction: the intent to wake a worker is
-- committed with the job, or neither is. A publisher claims unsent rows, sends them to
-- BullMQ outside any transaction, then marks them sent, only while its claim still holds.
-- Portable subset: written for MySQL 8.4 and MariaDB 10.11 (see docs/mysql-and-mariadb.md).

CREATE TABLE IF NOT EXISTS export_outbox (
  -- The event's own id, not the job's: one job may get several events over its life
  -- (lesson 15's recovery wakes it again). It is also the BullMQ job id of the send.
  id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  job_id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  -- Which BullMQ queue the wake-up goes to, decided when the job was accepted.
  queue_name VARCHAR(100) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  -- No claim before this instant: a failed send waits the retry delay before the next try.
  available_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  -- The current claim: which publisher may confirm the send, and until when. Past
  -- claimed_until another publisher may claim the event and send it again.
  claim_token CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NULL,
  claimed_until DATETIME(6) NULL,
  -- Set only after the broker accepted the message, by the claim's holder. NULL = not sent yet.
  sent_at DATETIME(6) NULL,
  -- How many times a publisher claimed it to send it (a resend after a lost confirmation counts).
  send_attempts INT NOT NULL DEFAULT 0,
  -- Why the last send failed, for people (the publisher also reports it as it happens).
  last_error VARCHAR(500) NULL,
  PRIMARY KEY (id),
  CONSTRAINT export_outbox_job_fk FOREIGN KEY (job_id) REFERENCES export_jobs (id),
  CONSTRAINT export_outbox_send_attempts_check CHECK (send_attempts >= 0),
  -- The claim's index: `WHERE sent_at IS NULL ... ORDER BY created_at, id LIMIT n FOR
  -- UPDATE SKIP LOCKED` reads it in order and stops after n rows, so a publisher locks
  -- only the rows it takes. The course's (sent_at, available_at, created_at) does not
  -- match that ORDER BY: the server sorts every eligible row first and locks them all,
  -- and a second publisher finds nothing (docs/mysql-and-mariadb.md; the check
  -- `two-publishers-share-the-work` measures both, see src/outbox-queries.ts).
  KEY export_outbox_claim (sent_at, created_at, id),
  -- A job's events (and the foreign key's index).
  KEY export_outbox_job_sent (job_id, sent_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
