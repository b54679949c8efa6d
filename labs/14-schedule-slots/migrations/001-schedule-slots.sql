-- Lesson 14: durable time slots. A slot is the unique name of "this period's run of this
-- work" (for example the minute 2026-01-01T10:00 of the export schedule). The primary key
-- keeps the evidence that the slot was scheduled; the foreign key says which job it made.
-- Written in the same transaction as the job and its outbox event: job -> slot -> event
-- (the foreign key is checked at once, so the job must exist before its slot).
-- Portable subset: written for MySQL 8.4 and MariaDB 10.11 (see docs/mysql-and-mariadb.md).

CREATE TABLE IF NOT EXISTS export_schedule_slots (
  -- ASCII, compared byte for byte: 'shop-export:20260101T1000' and '...t1000' are two slots.
  slot_key VARCHAR(160) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  -- One slot per job and one job per slot.
  job_id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (slot_key),
  UNIQUE KEY export_schedule_slots_job (job_id),
  -- The course's step 6 lists the latest slots: newest first, in index order.
  KEY export_schedule_slots_created (created_at, slot_key),
  CONSTRAINT export_schedule_job_fk FOREIGN KEY (job_id) REFERENCES export_jobs (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
