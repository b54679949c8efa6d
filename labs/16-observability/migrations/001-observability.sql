-- Lesson 16: the trace a job belongs to, and what housekeeping needs.
-- Portable subset: written for MySQL 8.4 and MariaDB 10.11 (see docs/mysql-and-mariadb.md).

-- The W3C trace context of the request that submitted the job (`traceparent`:
-- 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, 55 characters). Kept on the job, not
-- on each event: every event of the job (the submit's, and the recovery scanner's later ones)
-- is sent as a child span of this one, so one job's whole path reads as one trace.
ALTER TABLE export_jobs
  ADD COLUMN trace_parent CHAR(55) CHARACTER SET ascii COLLATE ascii_bin NULL;

-- Housekeeping needs no new index: sent events by age use lesson 12's (sent_at, created_at, id)
-- (a range on sent_at, read in order), terminal jobs by age lesson 15's (status, updated_at, id).
