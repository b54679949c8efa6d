// Runs the verify script of each earlier lab as a real child process and records
// what it reported. Lesson 07 bases its decision record on what lessons 01-06
// showed on this machine, so it first re-runs them and keeps the outcome.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTsProcess, withResources } from '@tasks-lab/lab-kit';
import { EARLIER_LABS_FILE, readLabResult } from './recorded-run.ts';
import { EARLIER_LABS_OPTIONS } from './options.ts';

/** The labs whose evidence lesson 07 relies on, in lesson order. */
export const EARLIER_LABS = [
  '01-state-machine',
  '02-bounded-async',
  '03-background-tasks',
  '04-worker-threads',
  '05-thread-pool-io',
  '06-process-pool',
] as const;

export type EarlierLabStatus = 'passed' | 'failed' | 'missing' | 'no-summary' | 'timed-out';

export interface EarlierLabRun {
  lab: string;
  status: EarlierLabStatus;
  passed: number | null;
  failed: number | null;
  exitCode: number | null;
  ms: number;
  /** The lab's closing "N passed, N failed" line, or why there is none. */
  summary: string;
  /** The ids of the checks that failed (`✗ FAIL  <name> [<id>]` lines), so a failure says which one. */
  failedChecks: string[];
}

export interface EarlierLabsRecord {
  ranAt: string;
  totalMs: number;
  labs: EarlierLabRun[];
}

export interface VerifySummary {
  passed: number;
  failed: number;
  line: string;
}

/** Finds the last "N passed, N failed" line that lab-kit's runVerify prints. */
export function parseVerifySummary(output: string): VerifySummary | null {
  const matches = [...output.matchAll(/^(\d+) passed, (\d+) failed\s*$/gm)];
  const last = matches.at(-1);
  if (!last) return null;
  return { passed: Number(last[1]), failed: Number(last[2]), line: last[0].trim() };
}

/** The ids of the failed checks in a verify's output: runVerify prints `✗ FAIL  <name> [<id>] — observed: ...`. */
export function parseFailedChecks(output: string): string[] {
  return [...output.matchAll(/^✗ FAIL {2}.*? \[([a-z0-9]+(?:-[a-z0-9]+)*)\] — observed: /gm)].map((match) => match[1]!);
}

/** A lab counts as passed only when it printed a summary with zero failures and exited 0. */
export function judgeRun(summary: VerifySummary | null, exitCode: number | null): EarlierLabStatus {
  if (!summary) return 'no-summary';
  return summary.failed === 0 && summary.passed > 0 && exitCode === 0 ? 'passed' : 'failed';
}

/**
 * How long a lab's verify gets to stop after SIGTERM before it is SIGKILLed. On SIGTERM
 * lab-kit's runVerify aborts its running check, whose processes and connections close;
 * a bare SIGKILL would leave those behind. Below a check's 15 s clean-up grace.
 */
export const VERIFY_STOP_GRACE_MS = 10_000;

export interface RunLabOptions {
  /** A lab whose verify runs longer than this is killed and recorded as timed out. @defaultValue 180000 (EARLIER_LAB_TIMEOUT_MS) */
  timeoutMs?: number;
  /** Aborting it stops the verify process that is running (a timed-out check leaves none behind). */
  signal?: AbortSignal;
  /**
   * Epoch ms. When a lab's verify already wrote its .lab-result.json at or after this
   * time, record that run instead of starting another one. `pnpm test` sets it (through
   * TASKS_LAB_RUN_STARTED) after turbo has run labs 01-06's verify in the same run, so CI
   * does not run them twice. A student's `pnpm lab 07` always runs them afresh.
   */
  reuseSince?: number;
}

/** The verify run of `lab` recorded at or after `since`, if there is one (`labsDir/lab/.lab-result.json`). */
export function recentRun(labsDir: string, lab: string, since: number): EarlierLabRun | undefined {
  let result: ReturnType<typeof readLabResult>;
  try {
    result = readLabResult(labsDir, lab);
  } catch {
    return undefined; // an unreadable result file is no reason to skip the run: run the lab again
  }
  if (!result || Date.parse(result.finishedAt) < since) return undefined;
  const line = `${result.passed} passed, ${result.failed} failed`;
  return {
    lab,
    // The result file is written only when every check ran; its counts decide alone.
    status: result.failed === 0 && result.passed > 0 ? 'passed' : 'failed',
    passed: result.passed,
    failed: result.failed,
    exitCode: null, // that run belonged to turbo; its exit code is not ours to see
    ms: 0,
    summary: `${line} (run by this \`pnpm test\` at ${result.finishedAt.slice(11, 19)} UTC)`,
    failedChecks: result.results.filter((check) => !check.ok).map((check) => check.id ?? check.name),
  };
}

/** Runs `<labsDir>/<lab>/scripts/verify.ts` with the lab folder as working directory. */
export async function runLabVerify(labsDir: string, lab: string, options: RunLabOptions = {}): Promise<EarlierLabRun> {
  const labDir = join(labsDir, lab);
  const script = join(labDir, 'scripts', 'verify.ts');
  const notRun = { passed: null, failed: null, exitCode: null, failedChecks: [] };
  if (!existsSync(script)) {
    return { lab, status: 'missing', ...notRun, ms: 0, summary: `no scripts/verify.ts in labs/${lab}` };
  }
  const reused = options.reuseSince === undefined ? undefined : recentRun(labsDir, lab, options.reuseSince);
  if (reused) return reused;
  const timeoutMs = options.timeoutMs ?? EARLIER_LABS_OPTIONS.defaults().labTimeoutMs;
  return withResources(options.signal, async (res) => {
    const started = Date.now();
    const child = res.add(startTsProcess(script, { cwd: labDir }), (c) => c.stop(VERIFY_STOP_GRACE_MS));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed-out'>((resolve) => {
      timer = setTimeout(() => resolve('timed-out'), timeoutMs);
    });
    res.defer(() => clearTimeout(timer));
    const exit = await Promise.race([child.exited, timedOut]);
    // Stopped because the caller gave up (the check's time limit, Ctrl-C): that is not this lab's result.
    res.throwIfAborted();
    const ms = Date.now() - started;
    if (exit === 'timed-out') {
      await child.stop(VERIFY_STOP_GRACE_MS);
      return { lab, status: 'timed-out', ...notRun, ms, summary: `still running after ${timeoutMs} ms, stopped` };
    }
    const output = child.output();
    const summary = parseVerifySummary(output);
    return {
      lab,
      status: judgeRun(summary, exit.code),
      passed: summary?.passed ?? null,
      failed: summary?.failed ?? null,
      exitCode: exit.code,
      ms,
      summary: summary?.line ?? 'no "N passed, N failed" line in the output',
      failedChecks: parseFailedChecks(output),
    };
  });
}

export interface RunEarlierLabsOptions extends RunLabOptions {
  labs?: readonly string[];
  /** Called after each lab, for a progress line. */
  onLab?: (run: EarlierLabRun) => void;
}

/** One lab after another: they measure timings, so they must not compete for the CPU. */
export async function runEarlierLabs(labsDir: string, options: RunEarlierLabsOptions = {}): Promise<EarlierLabsRecord> {
  const started = Date.now();
  const runs: EarlierLabRun[] = [];
  for (const lab of options.labs ?? EARLIER_LABS) {
    const run = await runLabVerify(labsDir, lab, options);
    runs.push(run);
    options.onLab?.(run);
  }
  return { ranAt: new Date(started).toISOString(), totalMs: Date.now() - started, labs: runs };
}

export function writeEarlierLabsRecord(labDir: string, record: EarlierLabsRecord): string {
  const file = join(labDir, EARLIER_LABS_FILE);
  writeFileSync(file, JSON.stringify(record, null, 2) + '\n');
  return file;
}

export function formatRun(run: EarlierLabRun): string {
  const failed = run.failedChecks.length > 0 ? `; failed: ${run.failedChecks.join(', ')}` : '';
  return `lab ${run.lab}: ${run.status} (${run.summary}, ${(run.ms / 1000).toFixed(1)} s${failed})`;
}
