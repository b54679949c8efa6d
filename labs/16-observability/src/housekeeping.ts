// Housekeeping: what the course leaves out. Every send adds an outbox row, every export a job
// row (and maybe a slot and a dead letter) and a file, and nothing ever removes them: the
// tables and the folder grow for ever (the course's deep dive on result backends: "the
// clean-up task must actually run"). Three prunes, each in short steps, oldest first:
//
//   pruneSentOutbox        sent events older than OUTBOX_RETENTION_MS (7 days), except each
//                          job's FIRST event (see below)
//   pruneTerminalJobs      succeeded / failed / cancelled jobs untouched for JOB_RETENTION_MS
//                          (30 days), with their events, slot and dead letter
//   pruneOrphanArtifacts   files no job's result_ref names, older than ARTIFACT_GRACE_MS
//                          (1 day), and the temp files of interrupted writes (a worker killed
//                          while writing: lessons 11 to 15 leave them), older than
//                          TEMP_FILE_GRACE_MS (1 hour)
//
// Never touched: queued and running jobs (whatever their age), unsent events (the publisher's
// work), a referenced artifact, a young file (a temp file a live worker is writing included), a
// file whose name is not an artifact's.
//
// Each DELETE takes at most HOUSEKEEPING_BATCH rows, in its own short transaction: one huge
// DELETE would hold its locks (and grow the undo log) for as long as it runs, and the
// publisher, the workers and the admissions would wait behind it. No file is touched while a
// row lock is held: the database steps commit before any unlink.
//
// A DELETE gives InnoDB's pages back to the table, not to the disk (the deep dive's question
// 2: the .ibd file does not shrink until OPTIMIZE TABLE); tasks_lab_table_bytes shows it.
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { microseconds, withTransaction } from '@tasks-lab/11-mysql-leases';
import { OBSERVABILITY_OPTIONS } from './options.ts';

/** The terminal states, lesson 01's: a job in one of them never changes again. */
export const TERMINAL_STATES = ['succeeded', 'failed', 'cancelled'] as const;
export type TerminalState = (typeof TERMINAL_STATES)[number];

// ---- sent events --------------------------------------------------------------------

/**
 * Sent events older than the retention, oldest first, that are NOT their job's first event.
 * The first event names the job's route (lesson 15's ROUTE_OF_JOB: a recovered or replayed
 * job goes to the queue its first event named); deleting it would send a recovered fast job
 * to exports.bulk. It goes with its job (pruneTerminalJobs), so each job keeps one row here.
 * Reads lesson 12's (sent_at, created_at, id) index in order and stops after `batch` rows.
 * Rows returned: 0 to batch. Parameters: [retentionMicros, batch].
 */
export const READ_PRUNABLE_SENT_EVENTS = `
  SELECT o.id
  FROM export_outbox AS o
  WHERE o.sent_at < TIMESTAMPADD(MICROSECOND, -?, NOW(6))
    AND EXISTS (
      SELECT 1 FROM export_outbox AS earlier
      WHERE earlier.job_id = o.job_id
        AND (earlier.created_at < o.created_at OR (earlier.created_at = o.created_at AND earlier.id < o.id)))
  ORDER BY o.sent_at, o.created_at, o.id
  LIMIT ?`;

/**
 * Deletes those events by id, repeating the age condition (a row is only deleted if it is
 * still sent and still old). Affected rows: 0 to the ids' count. Parameters: [ids, retentionMicros].
 */
export const DELETE_SENT_EVENTS = `
  DELETE FROM export_outbox
  WHERE id IN (?) AND sent_at < TIMESTAMPADD(MICROSECOND, -?, NOW(6))`;

// ---- terminal jobs ------------------------------------------------------------------

/**
 * Terminal jobs of one state untouched for the retention, oldest first, that no other job
 * replays (replay_of names them): see pruneTerminalJobs for why they stay. Reads lesson 15's
 * (status, updated_at, id) index in order; SKIP LOCKED: housekeeping waits for nobody (a
 * locked row is taken next time). Rows returned: 0 to batch. Parameters: [status, retentionMicros, batch].
 */
export const LOCK_PRUNABLE_JOBS = `
  SELECT j.id
  FROM export_jobs AS j
  WHERE j.status = ? AND j.updated_at < TIMESTAMPADD(MICROSECOND, -?, NOW(6))
    AND NOT EXISTS (SELECT 1 FROM export_jobs AS replay WHERE replay.replay_of = j.id)
  ORDER BY j.updated_at, j.id
  LIMIT ?
  FOR UPDATE SKIP LOCKED`;

/** The locked jobs' events (all of them, sent or not: the job is over). Parameters: [jobIds]. */
export const DELETE_EVENTS_OF_JOBS = `DELETE FROM export_outbox WHERE job_id IN (?)`;
/** Their time slots (lesson 14). Parameters: [jobIds]. */
export const DELETE_SLOTS_OF_JOBS = `DELETE FROM export_schedule_slots WHERE job_id IN (?)`;
/** Their dead letters (lesson 15). Parameters: [jobIds]. */
export const DELETE_DEAD_LETTERS_OF_JOBS = `DELETE FROM export_dead_letters WHERE job_id IN (?)`;
/** The jobs themselves, still in that state. Affected rows: the count deleted. Parameters: [jobIds, status]. */
export const DELETE_JOBS = `DELETE FROM export_jobs WHERE id IN (?) AND status = ?`;

// ---- artifacts ----------------------------------------------------------------------

/** Which of these jobs name which file. Rows: one per existing job. Parameters: [jobIds]. */
export const READ_RESULT_REFS = `
  SELECT id, result_ref
  FROM export_jobs
  WHERE id IN (?)`;

/**
 * An artifact's name, lesson 11's artifactName: `<job id>.<lease token>.json`; a write in
 * progress (or one that was interrupted) is `<that name>.tmp-<hex>` (lesson 11's and 15's writers).
 */
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
export const ARTIFACT_FILE = new RegExp(`^(${UUID})\\.${UUID}\\.json(\\.tmp-[0-9a-f]+)?$`);

// ---- the options and the report --------------------------------------------------------

export interface PruneOptions {
  /** Rows older than this are pruned. */
  retentionMs: number;
  /** Rows per DELETE (per transaction). */
  batch: number;
}

/** TEMP_FILE_GRACE_MS's default: an hour, well above the 10-minute deadline no write outlives. */
export const TEMP_FILE_GRACE_MS = OBSERVABILITY_OPTIONS.specs.tempFileGraceMs.default;

export interface OrphanOptions {
  /** Unreferenced artifacts younger than this are never deleted (see pruneOrphanArtifacts). */
  graceMs: number;
  /** Temp files of writes younger than this are never deleted: a live worker may be writing one. @defaultValue TEMP_FILE_GRACE_MS (1 hour) */
  tempGraceMs?: number;
  /** Job ids looked up per query. @defaultValue 500 */
  batch?: number;
  /** The clock the files' ages are measured with. @defaultValue Date.now */
  now?: () => number;
}

export interface HousekeepingOptions {
  outboxRetentionMs: number;
  jobRetentionMs: number;
  artifactGraceMs: number;
  /** TEMP_FILE_GRACE_MS. @defaultValue TEMP_FILE_GRACE_MS (1 hour) */
  tempFileGraceMs?: number;
  /** HOUSEKEEPING_BATCH. */
  batch: number;
}

export interface OrphanReport {
  deleted: number;
  /** Of them, temp files of interrupted writes (older than the temp grace). */
  temporaryDeleted: number;
  /** Younger than their grace: an unreferenced artifact about to be published, or a temp file being written. */
  keptYoung: number;
  /** Named by their job's result_ref. */
  keptReferenced: number;
  /** Not named like an artifact: not ours, left alone. */
  ignored: number;
}

export interface HousekeepingReport {
  outboxDeleted: number;
  jobsDeleted: number;
  artifactsDeleted: number;
  artifacts: OrphanReport;
  /** How many DELETE transactions ran (each of at most `batch` rows). */
  statements: number;
  ms: number;
}

/** A bound on the loops: a bug (a DELETE that deletes nothing yet finds rows) must not spin for ever. */
const MAX_ROUNDS = 100_000;

// ---- the prunes ---------------------------------------------------------------------

/**
 * Deletes sent events older than `retentionMs`, oldest first, `batch` at a time, until a round
 * finds fewer than `batch`. Unsent events are never touched (the publisher has yet to send
 * them), nor is each job's first event. Returns how many were deleted.
 *
 * Two statements per round, no transaction: a sent event never changes again, and the DELETE
 * repeats the age condition. (Why not one `DELETE … ORDER BY … LIMIT`: the first-event rule
 * reads export_outbox in a subquery, and MySQL refuses a DELETE that reads its own table.)
 */
export async function pruneSentOutbox(
  pool: Pool,
  options: PruneOptions,
): Promise<{ deleted: number; statements: number }> {
  let deleted = 0;
  let statements = 0;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const [rows] = await pool.query<RowDataPacket[]>(READ_PRUNABLE_SENT_EVENTS, [
      microseconds(options.retentionMs),
      options.batch,
    ]);
    if (rows.length === 0) break;
    const [result] = await pool.query<ResultSetHeader>(DELETE_SENT_EVENTS, [
      rows.map((row) => String(row.id)),
      microseconds(options.retentionMs),
    ]);
    deleted += result.affectedRows;
    statements += 1;
    if (rows.length < options.batch) break;
  }
  return { deleted, statements };
}

/** One round for one state, in ONE short transaction: lock the jobs, delete what points at them, then them. */
async function pruneJobsRound(
  tx: PoolConnection,
  status: TerminalState,
  options: PruneOptions,
): Promise<{ found: number; deleted: number }> {
  const [locked] = await tx.query<RowDataPacket[]>(LOCK_PRUNABLE_JOBS, [
    status,
    microseconds(options.retentionMs),
    options.batch,
  ]);
  if (locked.length === 0) return { found: 0, deleted: 0 };
  const ids = locked.map((row) => String(row.id));
  // The rows that reference a job go first: the foreign keys are checked at once, row by row.
  await tx.query(DELETE_EVENTS_OF_JOBS, [ids]);
  await tx.query(DELETE_SLOTS_OF_JOBS, [ids]);
  await tx.query(DELETE_DEAD_LETTERS_OF_JOBS, [ids]);
  const [result] = await tx.query<ResultSetHeader>(DELETE_JOBS, [ids, status]);
  return { found: locked.length, deleted: result.affectedRows };
}

/**
 * Deletes succeeded, failed and cancelled jobs whose updated_at is older than `retentionMs`,
 * with their outbox events, their time slot and their dead letter, `batch` jobs per short
 * transaction. Queued and running jobs are never touched.
 *
 * A failed job that another job replays (its replay_of) is KEPT while that replay exists: the
 * foreign key would refuse the delete, and the link is the replay's audit trail ("this is a
 * second run of that failed job"). Clearing replay_of instead would erase exactly that. When
 * the replay itself is pruned (a later round: replays are newer), the original becomes
 * prunable; the loop goes on until a round finds nothing, so a chain of old replays goes in
 * one run, newest first.
 *
 * The race this leaves safe: a replay created while we hold the failed job's lock waits on it
 * (the foreign key check reads the parent row with a shared lock), then fails on the missing
 * parent; it never links to a deleted job. A schedule slot deleted with its job could be
 * scheduled again, but only by a tick for a minute older than the retention.
 */
export async function pruneTerminalJobs(
  pool: Pool,
  options: PruneOptions,
): Promise<{ deleted: number; statements: number }> {
  let deleted = 0;
  let statements = 0;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    let deletedThisRound = 0;
    for (const status of TERMINAL_STATES) {
      const result = await withTransaction(pool, (tx) => pruneJobsRound(tx, status, options));
      deletedThisRound += result.deleted;
      if (result.found > 0) statements += 1;
    }
    deleted += deletedThisRound;
    // Nothing left (or only rows others hold locked, or still replayed): done for this run.
    if (deletedThisRound === 0) break;
  }
  return { deleted, statements };
}

/** A file in the artifacts folder, as listed: its name, the job its name carries, its age. */
interface ListedFile {
  name: string;
  jobId: string;
  temporary: boolean;
  ageMs: number;
}

/** The regular files named like artifacts (or their temp files); anything else is counted as ignored. */
async function listArtifactFiles(artifactsDir: string, now: number): Promise<{ files: ListedFile[]; ignored: number }> {
  let names: string[];
  try {
    names = await readdir(artifactsDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { files: [], ignored: 0 };
    throw err;
  }
  const files: ListedFile[] = [];
  let ignored = 0;
  for (const name of names) {
    const match = ARTIFACT_FILE.exec(name);
    // lstat: a symlink is not an artifact (and is never followed out of the folder).
    const stats = match ? await lstat(join(artifactsDir, name)).catch(() => undefined) : undefined;
    if (!match || !stats?.isFile()) {
      ignored += 1;
      continue;
    }
    files.push({ name, jobId: match[1]!, temporary: match[2] !== undefined, ageMs: now - stats.mtimeMs });
  }
  return { files, ignored };
}

/** The result_ref of each of these jobs that exists (plain reads by primary key, no lock). */
async function resultRefsOf(pool: Pool, jobIds: readonly string[], batch: number): Promise<Map<string, string | null>> {
  const refs = new Map<string, string | null>();
  const distinct = [...new Set(jobIds)];
  for (let start = 0; start < distinct.length; start += batch) {
    const [rows] = await pool.query<RowDataPacket[]>(READ_RESULT_REFS, [distinct.slice(start, start + batch)]);
    for (const row of rows) refs.set(String(row.id), row.result_ref === null ? null : String(row.result_ref));
  }
  return refs;
}

/**
 * Deletes the files of `artifactsDir` that no job's result_ref names and that are older than
 * `graceMs`, and the temp files of interrupted writes (`<artifact>.tmp-<hex>`, lesson 11's and
 * 15's writers) untouched for longer than `tempGraceMs`. The job is found by the id its file
 * name carries (lesson 11's artifactName), by primary key; a temp file needs no lookup: it is
 * never anybody's result.
 *
 * The race the grace prevents: a worker writes its file BEFORE its finish records result_ref
 * (lesson 11: the file first, outside any transaction, then the finish that publishes it).
 * Between the two, the file is unreferenced and perfectly normal; deleting it would leave a
 * succeeded job pointing at nothing. The finish needs a live lease before the job's deadline,
 * so a file older than the deadline (10 minutes by default) can no longer be published: keep
 * the grace well above it (a day by default). The row is read, the connection returned, THEN
 * the file is deleted: no file I/O while anything is held.
 *
 * The race the temp grace prevents: a live worker is writing its temp file right now (lesson
 * 15's writer adds a chunk, then asks canContinue, then adds the next). Its age is the time since
 * its last write, and a writer stops at its next chunk boundary once its job's deadline has
 * passed, so a temp file untouched for an hour has no writer left: a SIGKILL (which runs no
 * clean-up) left it. Deleting a younger one would make a live worker's rename fail.
 */
export async function pruneOrphanArtifacts(
  pool: Pool,
  artifactsDir: string,
  options: OrphanOptions,
): Promise<OrphanReport> {
  const now = (options.now ?? Date.now)();
  const { files, ignored } = await listArtifactFiles(artifactsDir, now);
  const tempGraceMs = options.tempGraceMs ?? TEMP_FILE_GRACE_MS;
  const old = files.filter((file) => file.ageMs > (file.temporary ? tempGraceMs : options.graceMs));
  const refs = await resultRefsOf(
    pool,
    old.filter((file) => !file.temporary).map((file) => file.jobId),
    options.batch ?? 500,
  );
  const report: OrphanReport = {
    deleted: 0,
    temporaryDeleted: 0,
    keptYoung: files.length - old.length,
    keptReferenced: 0,
    ignored,
  };
  for (const file of old) {
    // A temp file is never anybody's result; an artifact is kept when its job names it.
    if (!file.temporary && refs.get(file.jobId) === file.name) {
      report.keptReferenced += 1;
      continue;
    }
    await rm(join(artifactsDir, file.name), { force: true });
    report.deleted += 1;
    if (file.temporary) report.temporaryDeleted += 1;
  }
  return report;
}

/** One housekeeping pass: the events, then the jobs (their files become orphans), then the files. */
export async function runHousekeeping(
  pool: Pool,
  artifactsDir: string,
  options: HousekeepingOptions,
): Promise<HousekeepingReport> {
  const started = Date.now();
  const outbox = await pruneSentOutbox(pool, { retentionMs: options.outboxRetentionMs, batch: options.batch });
  const jobs = await pruneTerminalJobs(pool, { retentionMs: options.jobRetentionMs, batch: options.batch });
  const artifacts = await pruneOrphanArtifacts(pool, artifactsDir, {
    graceMs: options.artifactGraceMs,
    tempGraceMs: options.tempFileGraceMs,
    batch: options.batch,
  });
  return {
    outboxDeleted: outbox.deleted,
    jobsDeleted: jobs.deleted,
    artifactsDeleted: artifacts.deleted,
    artifacts,
    statements: outbox.statements + jobs.statements,
    ms: Date.now() - started,
  };
}

/** The report as one line per kind (`pnpm housekeeping`). */
export function formatHousekeeping(report: HousekeepingReport): string[] {
  const a = report.artifacts;
  return [
    `sent outbox events deleted: ${report.outboxDeleted}`,
    `terminal jobs deleted (with their events, slots and dead letters): ${report.jobsDeleted}`,
    `artifacts deleted: ${report.artifactsDeleted - a.temporaryDeleted}; kept: ${a.keptReferenced} referenced, ${a.keptYoung} within their grace, ${a.ignored} not named like an artifact`,
    `temp files of interrupted writes deleted: ${a.temporaryDeleted}`,
  ];
}
