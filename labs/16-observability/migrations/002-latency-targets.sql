-- Lesson 16: when each job was first claimed, for the latency targets (src/latency.ts).
-- Portable subset: written for MySQL 8.4 and MariaDB 10.11 (see docs/mysql-and-mariadb.md).

-- The instant of the job's FIRST claim: submit -> first claim is created_at -> first_claimed_at.
-- Nothing else keeps it: lease_until and updated_at move with every later claim. Written once, by
-- the worker right after its claim (RECORD_FIRST_CLAIM: the claim's own instant, read back from
-- its lease, and only while the row still carries that claim's token); a later claim keeps it.
-- Not a trigger: on MySQL with binary logging on (8.4's default), creating one needs SUPER.
-- The terminal instant needs no column: every move to succeeded, failed or cancelled sets
-- updated_at, and nothing updates a terminal row afterwards.
ALTER TABLE export_jobs
  ADD COLUMN first_claimed_at DATETIME(6) NULL,
  -- The start percentiles read the jobs first claimed in a recent window, newest first: a range
  -- on this index, read backwards, that stops after the row limit. The finish percentiles use
  -- lesson 15's (status, updated_at, id).
  ADD KEY export_jobs_first_claimed (first_claimed_at, id);
