-- Lesson 12: the foreign key gets an index of its own, holding only the key.
--
-- Migration 001 gave the foreign key the course's index, export_outbox_job_sent (job_id,
-- sent_at). InnoDB checks a foreign key whenever an entry of the key's index changes, and
-- setting sent_at changes that entry: so the publisher's confirmation, an UPDATE of the
-- outbox row only, also took a shared lock on the job's row for as long as it ran. Lesson
-- 11's claim skips a locked row (SKIP LOCKED) as "nothing to claim", and a wake-up that
-- reached a worker in that window was lost (docs/12-outbox.md, Troubleshooting). With the
-- key on its own index, the confirmation no longer touches the key's index, and locks
-- nothing of the job's. A job's events are still found by job_id, on this index.
-- Portable subset: written for MySQL 8.4 and MariaDB 10.11 (see docs/mysql-and-mariadb.md).

ALTER TABLE export_outbox
  ADD KEY export_outbox_job (job_id),
  DROP KEY export_outbox_job_sent;
