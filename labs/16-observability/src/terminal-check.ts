// The course's step 3, verify_terminal: one job's end state, checked against the database AND
// the file. A row that says "succeeded" proves nothing about the file; only reading both
// catches "the state was written but the file is missing (or wrong)".
//
//   no row                -> missing
//   queued / running      -> not-terminal (nothing to check yet)
//   failed / cancelled    -> terminal-without-artifact, if result_ref is NULL (a problem if not:
//                            a failed job must never point at a result)
//   succeeded             -> artifact-verified, if ALL of these hold:
//       - result_ref resolves (symlinks followed: realpath) INSIDE the artifacts folder; a
//         `../` or an absolute path or a symlink out of it is a problem, and is never read
//       - the file parses as JSON, and its VALUE equals the job's snapshot (deep equality of
//         the parsed values: key order and whitespace do not matter, the products do)
//       - result_rows (if set) is the number of rows in the file
//       - cancel_requested is false (a cancel after success is refused, so true is a bug)
//
// Why values and not text: lesson 15's worker writes the file in chunks (renderChunk), lesson
// 11's in one piece (renderArtifact); both are JSON.stringify(snapshot, null, 2), but any other
// faithful writer (other indent, other key order) writes the same products. The course: "compare
// JSON values, not the spacing or key order of their serialisation".
//
// The row is read with one pool query (the connection goes back to the pool when it answers),
// THEN the file is read: no connection is held while the disk works. The sha256 of the file's
// bytes goes in the verdict: the failure matrix's evidence records it (artifact_sha256).
import { createHash } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { decodeSnapshot, type Snapshot } from '@tasks-lab/11-mysql-leases';
import { displayPath } from './display-path.ts';

export type TerminalVerdictKind =
  | 'artifact-verified'
  | 'terminal-without-artifact'
  | 'not-terminal'
  | 'missing'
  | 'mismatch';

export interface TerminalVerdict {
  jobId: string;
  status: string | null;
  attempts: number | null;
  verdict: TerminalVerdictKind;
  /** Why the verdict is 'mismatch' (empty otherwise). Names keys and rows, never a product's text. */
  problems: string[];
  /** The file's real path (symlinks resolved), when it lies inside the artifacts folder. */
  artifactPath?: string;
  /** sha256 of the file's bytes, when it was read. */
  artifactSha256?: string;
}

/** What the check reads of the job. Rows returned: 0 or 1. Parameters: [jobId]. */
export const READ_TERMINAL_STATE = `
  SELECT id, status, attempts, cancel_requested, snapshot, result_ref, result_rows
  FROM export_jobs
  WHERE id = ?`;

/** Artifacts are at most 100 products: a file far bigger than that is not one (and is not read whole). */
export const MAX_ARTIFACT_BYTES = 16 * 1024 * 1024;

interface TerminalRow {
  status: string;
  attempts: number;
  cancelRequested: boolean;
  snapshot: unknown;
  resultRef: string | null;
  resultRows: number | null;
}

async function readTerminalRow(pool: Pool, jobId: string): Promise<TerminalRow | undefined> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_TERMINAL_STATE, [jobId]);
  const row = rows[0];
  if (!row) return undefined;
  return {
    status: String(row.status),
    attempts: Number(row.attempts),
    cancelRequested: Boolean(Number(row.cancel_requested)),
    snapshot: row.snapshot,
    resultRef: row.result_ref === null ? null : String(row.result_ref),
    resultRows: row.result_rows === null ? null : Number(row.result_rows),
  };
}

/** Is `target` (a real path) inside `root` (a real path), and not the folder itself? */
export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** The real path of the artifact, or the problem with it. Nothing outside the folder is read. */
async function locateArtifact(
  artifactsDir: string,
  resultRef: string,
): Promise<{ path: string } | { problem: string }> {
  const root = await realpath(artifactsDir).catch(() => undefined);
  if (!root) return { problem: `the artifacts folder ${artifactsDir} does not exist` };
  // result_ref is a file name in the folder (lesson 11); resolve() also turns `../x` or an absolute path into where it really points.
  const named = resolve(root, resultRef);
  if (!isInside(root, named))
    return { problem: `result_ref ${JSON.stringify(resultRef.slice(0, 120))} points outside the artifacts folder` };
  const real = await realpath(named).catch((err: NodeJS.ErrnoException) =>
    err.code === 'ENOENT' ? null : Promise.reject(err),
  );
  if (real === null) return { problem: `the artifact ${JSON.stringify(resultRef.slice(0, 120))} does not exist` };
  // A symlink inside the folder that leads out of it (a shared folder mounted elsewhere must be configured as the folder itself).
  if (!isInside(root, real))
    return {
      problem: `result_ref ${JSON.stringify(resultRef.slice(0, 120))} resolves (through a symlink) outside the artifacts folder`,
    };
  return { path: real };
}

/** Where two parsed values first differ, by row and key: enough to find it, without quoting a product. */
export function firstDifference(expected: readonly Snapshot[], actual: unknown): string {
  if (!Array.isArray(actual))
    return `the file holds ${actual === null ? 'null' : typeof actual}, not an array of products`;
  if (actual.length !== expected.length) return `the file holds ${actual.length} rows, the snapshot ${expected.length}`;
  for (const [index, want] of expected.entries()) {
    const got: unknown = actual[index];
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return `row ${index} is not an object`;
    const keys = new Set([...Object.keys(want), ...Object.keys(got)]);
    for (const key of keys) {
      if (
        !isDeepStrictEqual((want as unknown as Record<string, unknown>)[key], (got as Record<string, unknown>)[key])
      ) {
        return `row ${index} (product ${want.id}): "${key.slice(0, 40)}" differs`;
      }
    }
  }
  return 'the values differ';
}

/** The succeeded job's file, checked against its row. */
async function checkArtifact(
  row: TerminalRow,
  artifactsDir: string,
): Promise<Pick<TerminalVerdict, 'problems' | 'artifactPath' | 'artifactSha256'>> {
  const problems: string[] = [];
  if (row.cancelRequested) problems.push('cancel_requested is set on a succeeded job');
  if (row.resultRef === null) return { problems: [...problems, 'succeeded, but result_ref is NULL'] };
  const located = await locateArtifact(artifactsDir, row.resultRef);
  if ('problem' in located) return { problems: [...problems, located.problem] };
  const stats = await stat(located.path);
  if (!stats.isFile())
    return { problems: [...problems, 'the artifact is not a regular file'], artifactPath: located.path };
  const size = stats.size;
  if (size > MAX_ARTIFACT_BYTES)
    return { problems: [...problems, `the artifact is ${size} bytes: not an export`], artifactPath: located.path };
  const bytes = await readFile(located.path);
  const artifactSha256 = createHash('sha256').update(bytes).digest('hex');
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { problems: [...problems, 'the artifact is not valid JSON'], artifactPath: located.path, artifactSha256 };
  }
  const snapshot = decodeSnapshot(row.snapshot);
  if (!isDeepStrictEqual(value, snapshot))
    problems.push(`the artifact's value is not the snapshot: ${firstDifference(snapshot, value)}`);
  if (row.resultRows !== null && Array.isArray(value) && value.length !== row.resultRows)
    problems.push(`result_rows is ${row.resultRows}, the file holds ${value.length} rows`);
  return { problems, artifactPath: located.path, artifactSha256 };
}

/** The course's verify_terminal, by value. Never throws for a job's state; only for a database or disk error. */
export async function verifyTerminal(pool: Pool, jobId: string, artifactsDir: string): Promise<TerminalVerdict> {
  // One pool query: its connection is back in the pool before any file is opened.
  const row = await readTerminalRow(pool, jobId);
  if (!row) return { jobId, status: null, attempts: null, verdict: 'missing', problems: [] };
  const base = { jobId, status: row.status, attempts: row.attempts };
  if (row.status === 'queued' || row.status === 'running') return { ...base, verdict: 'not-terminal', problems: [] };
  if (row.status === 'failed' || row.status === 'cancelled') {
    const problems =
      row.resultRef === null
        ? []
        : [`${row.status}, but result_ref names ${JSON.stringify(row.resultRef.slice(0, 120))}`];
    return { ...base, verdict: problems.length === 0 ? 'terminal-without-artifact' : 'mismatch', problems };
  }
  if (row.status !== 'succeeded')
    return { ...base, verdict: 'mismatch', problems: [`unknown status ${JSON.stringify(row.status.slice(0, 20))}`] };
  const checked = await checkArtifact(row, artifactsDir);
  return { ...base, verdict: checked.problems.length === 0 ? 'artifact-verified' : 'mismatch', ...checked };
}

/**
 * The course's output: `state … attempts …`, then `artifact verified` / `terminal without published artifact` / the problems.
 * The artifact's path is shown relative to the current folder when inside it (`artifacts/<job>.<token>.json`).
 */
export function describeVerdict(verdict: TerminalVerdict): string[] {
  if (verdict.verdict === 'missing') return [`job ${verdict.jobId}: no such job`];
  const lines = [`state ${verdict.status} attempts ${verdict.attempts}`];
  switch (verdict.verdict) {
    case 'artifact-verified':
      lines.push(`artifact verified: ${displayPath(verdict.artifactPath ?? '')} (sha256 ${verdict.artifactSha256})`);
      break;
    case 'terminal-without-artifact':
      lines.push('terminal without published artifact');
      break;
    case 'not-terminal':
      lines.push('not terminal yet: nothing to verify');
      break;
    case 'mismatch':
      for (const problem of verdict.problems) lines.push(`problem: ${problem}`);
      break;
  }
  return lines;
}
