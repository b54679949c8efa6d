// `pnpm bench:recovery` (from the root): how long recovery takes, in seconds, from the fault to
// the job running again, against the course's budgets. Two faults, each run by its row of the
// failure matrix (src/matrix/rows-recovery.ts; each row's waits count every timer on its path, so
// it runs at the course's timings as it does at the short ones): this script only chooses the
// timings, notes when claims win, and reads the evidence record each row returns.
//
//   worker killed   worker-killed-holding-lease: a real worker PROCESS claims a bulk job and
//                   hangs; it is SIGKILLed; the lease runs out, the scanner requeues the job after
//                   the backoff, a second worker runs it. The course's budget: 60 s.
//   lost dispatch   dispatched-never-claimed: the event is sent and confirmed, then its BullMQ
//                   message is removed from Redis before any worker took it; once the unclaimed
//                   threshold passes the scanner writes a new event and a worker runs it. The
//                   course's budget: 90 s.
//
// Measured on the row's own clock: from the fault (the row's injected step: the SIGKILL, the
// message's removal) to the job running again (the first claim that won after it, noted by the
// in-process workers' claim step; or a sample of the row running under a new lease token, if
// that came first) and to the first sample of it succeeded. The evidence samples the row every
// ~50 ms, and a small export runs in less: the claim itself says when it won. Each is compared
// with its path's budget at the same timings (src/matrix/budget.ts: the timers the path waits
// on, plus the allowance for the queue and the export), and at the course's timings also with
// the course's own budget. The rows' judges still decide pass or fail, as in `pnpm matrix`.
//
// The timings: the course's (lease 30 s, scan 5 s, backoff 10 s, unclaimed 60 s, poll 5 s),
// and the matrix's short ones (lease 1.5 s, scan 0.2 s, backoff 0.5 s, unclaimed 1 s, poll 1 s).
// A course-timing run waits for the real timers: about a minute each.
//
//   pnpm bench:recovery                 1 run of each fault at the course's timings, 3 at the short ones (about 2 minutes)
//   pnpm bench:recovery -- --quick      1 run of each at the short timings only (about 10 s)
//   pnpm bench:recovery -- --course-runs 3 --short-runs 5
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureInfra } from '@tasks-lab/infra';
import { median, runMain, formatDuration } from '@tasks-lab/lab-kit';
import { claimOrWait } from '@tasks-lab/15-recovery';
import {
  COURSE_TIMINGS,
  describeBudget,
  type EvidenceRecord,
  MATRIX_PARTS,
  type MatrixParts,
  matrixTimings,
  type ObservabilityOptionValues,
  recoveryBudgetSeconds,
  type RecoveryPath,
  type RowResult,
  runRow,
  secondsBetween,
  selectRows,
} from '@tasks-lab/16-observability';

export const RECOVERY_CASES = [
  {
    id: 'worker-killed',
    label: 'worker killed (SIGKILL mid-job)',
    row: 'worker-killed-holding-lease',
    path: 'lease',
    courseBudgetSeconds: 60,
    // The row's injected step for the kill (rows-recovery.ts): "SIGKILL worker process <pid> (...)".
    faultStep: 'SIGKILL',
  },
  {
    id: 'lost-dispatch',
    label: 'dispatch lost (message removed)',
    row: 'dispatched-never-claimed',
    path: 'unclaimed',
    courseBudgetSeconds: 90,
    // "action: the sent wake-up removed from Redis before any worker took it (the message is lost)".
    faultStep: 'action: the sent wake-up removed',
  },
] as const satisfies ReadonlyArray<{
  id: string;
  label: string;
  row: string;
  path: RecoveryPath;
  courseBudgetSeconds: number;
  faultStep: string;
}>;

export type RecoveryCaseId = (typeof RECOVERY_CASES)[number]['id'];
export const TIMINGS = ['course', 'short'] as const;
export type TimingsName = (typeof TIMINGS)[number];

/** One row run: its verdict and the seconds from the fault to each step of the recovery. */
export interface RecoveryRun {
  case: RecoveryCaseId;
  timings: TimingsName;
  run: number;
  /** The row's own verdict (its judge, and its recovery within its budget). */
  result: RowResult;
  observed: string;
  /** Fault -> the job running under a new lease token; null when it was never seen. */
  toRunningSeconds: number | null;
  /** Fault -> succeeded; null when it was never seen. */
  toSucceededSeconds: number | null;
  /** The path's budget at these timings (budget.ts) and how it adds up. */
  budgetSeconds: number;
  budget: string;
}

export interface RecoveryBenchResult {
  settings: {
    courseRuns: number;
    shortRuns: number;
    /** The timers each set of timings ran with, in words ("lease 30 s, scan 5 s, ..."). */
    timings: Record<TimingsName, string>;
  };
  runs: RecoveryRun[];
}

/** The median of one case at one timing. */
export interface RecoveryMedian {
  case: RecoveryCaseId;
  timings: TimingsName;
  toRunningSeconds: number;
  toSucceededSeconds: number;
  budgetSeconds: number;
  budget: string;
  /** The course's budget for the path (60 s, 90 s): it applies at the course's timings. */
  courseBudgetSeconds: number;
  passed: number;
  runs: number;
}

// ---- the figures (pure) ---------------------------------------------------------------------

/**
 * The instants this benchmark reads off a row's evidence, in seconds after the fault.
 * `claimsAtMs`: when the in-process workers' claims won, on the row's clock (at_ms).
 */
export function recoveryTimes(
  record: Pick<EvidenceRecord<unknown>, 'injected' | 'observed_states'>,
  faultStep: string,
  claimsAtMs: readonly number[] = [],
): { toRunningSeconds: number | null; toSucceededSeconds: number | null } {
  const fault = record.injected.find((step) => step.what.startsWith(faultStep));
  if (!fault) return { toRunningSeconds: null, toSucceededSeconds: null };
  const after = record.observed_states.filter((s) => s.at_ms >= fault.at_ms);
  // The token the job had when the fault struck (the dead holder's, or none for a queued job):
  // running again means running under another one.
  const atFault = record.observed_states.filter((s) => s.at_ms <= fault.at_ms).at(-1);
  const sampled = after.find((s) => s.status === 'running' && s.lease_token !== (atFault?.lease_token ?? null))?.at_ms;
  const claimed = claimsAtMs.filter((at) => at >= fault.at_ms);
  const running = [sampled ?? Number.POSITIVE_INFINITY, ...claimed].reduce((a, b) => Math.min(a, b));
  const succeeded = after.find((s) => s.status === 'succeeded');
  return {
    toRunningSeconds: secondsBetween(fault.at_ms, Number.isFinite(running) ? running : undefined),
    toSucceededSeconds: secondsBetween(fault.at_ms, succeeded?.at_ms),
  };
}

/** NaN instead of a median of nothing: a figure that was never seen prints as "–". */
const medianOf = (values: ReadonlyArray<number | null>) => {
  const seen = values.filter((v): v is number => v !== null);
  return seen.length === 0 ? Number.NaN : median(seen);
};

export function recoveryMedians(result: Pick<RecoveryBenchResult, 'runs'>): RecoveryMedian[] {
  const medians: RecoveryMedian[] = [];
  for (const timings of TIMINGS) {
    for (const recoveryCase of RECOVERY_CASES) {
      const mine = result.runs.filter((r) => r.case === recoveryCase.id && r.timings === timings);
      const first = mine[0];
      if (!first) continue;
      medians.push({
        case: recoveryCase.id,
        timings,
        toRunningSeconds: medianOf(mine.map((r) => r.toRunningSeconds)),
        toSucceededSeconds: medianOf(mine.map((r) => r.toSucceededSeconds)),
        budgetSeconds: first.budgetSeconds,
        budget: first.budget,
        courseBudgetSeconds: recoveryCase.courseBudgetSeconds,
        passed: mine.filter((r) => r.result === 'pass').length,
        runs: mine.length,
      });
    }
  }
  return medians;
}

export const caseLabel = (id: RecoveryCaseId): string => RECOVERY_CASES.find((c) => c.id === id)?.label ?? id;
const seconds = (value: number | null) => (value === null ? 'never' : `${value.toFixed(2)} s`);

/** "[2/8] dispatch lost, short timings, run 1: running again after 1.62 s, succeeded after 1.70 s (budget 5.2 s): pass" */
export function describeRecoveryRun(step: number, total: number, run: RecoveryRun): string {
  return (
    `[${step}/${total}] ${caseLabel(run.case)}, ${run.timings} timings, run ${run.run}: running again after ${seconds(run.toRunningSeconds)}, ` +
    `succeeded after ${seconds(run.toSucceededSeconds)} (budget ${run.budgetSeconds} s): ${run.result}`
  );
}

// ---- running the rows -----------------------------------------------------------------------

const timingsOf = (name: TimingsName): ObservabilityOptionValues =>
  name === 'course' ? { ...COURSE_TIMINGS } : matrixTimings();

/** The timers on the two paths: "lease 30 s, scan 5 s, backoff 10 s, unclaimed 60 s, poll 5 s". */
export function describeRecoveryTimings(
  t: Pick<
    ObservabilityOptionValues,
    'leaseMs' | 'recoveryScanMs' | 'retryBackoffMs' | 'unclaimedThresholdMs' | 'pollMs'
  >,
): string {
  const terms: Array<[string, number]> = [
    ['lease', t.leaseMs],
    ['scan', t.recoveryScanMs],
    ['backoff', t.retryBackoffMs],
    ['unclaimed', t.unclaimedThresholdMs],
    ['poll', t.pollMs],
  ];
  return terms.map(([name, ms]) => `${name} ${formatDuration(ms)}`).join(', ');
}

/**
 * The matrix's parts with lesson 15's claimOrWait wrapped: each claim that wins is noted (epoch
 * ms) in `claimedAt`. It observes and changes nothing. The claims after the fault are always an
 * in-process worker's (the killed process made its claim before it was killed).
 */
function partsNotingClaims(claimedAt: number[]): MatrixParts {
  const claimOrWaitNoted = async (...args: Parameters<typeof claimOrWait>) => {
    const attempt = await claimOrWait(...args);
    if (attempt.outcome === 'claimed') claimedAt.push(Date.now());
    return attempt;
  };
  return { ...MATRIX_PARTS, workerParts: { ...MATRIX_PARTS.workerParts, claimOrWait: claimOrWaitNoted } };
}

/** One run of one case's row at `timings`, on the row's own database, prefix and folder (nothing written to evidence/). */
export async function runRecoveryCase(
  recoveryCase: (typeof RECOVERY_CASES)[number],
  timingsName: TimingsName,
  run: number,
): Promise<RecoveryRun> {
  const [row] = selectRows([recoveryCase.row]);
  if (!row) throw new Error(`no matrix row ${recoveryCase.row}`);
  const timings = timingsOf(timingsName);
  const claimedAt: number[] = [];
  const record = await runRow(row, { timings, parts: partsNotingClaims(claimedAt) });
  // On the row's clock: at_ms counts from the recorder's start, which started_at holds to the ms.
  const startedAt = Date.parse(record.started_at);
  const claimsAtMs = claimedAt.map((at) => at - startedAt);
  return {
    case: recoveryCase.id,
    timings: timingsName,
    run,
    result: record.result,
    observed: record.observed.slice(0, 600),
    ...recoveryTimes(record, recoveryCase.faultStep, claimsAtMs),
    budgetSeconds: recoveryBudgetSeconds(recoveryCase.path, timings),
    budget: describeBudget(recoveryCase.path, timings),
  };
}

export interface RecoveryBenchOptions {
  /** Runs of each case at the course's timings (about a minute each). @defaultValue 1 (0 with quick) */
  courseRuns?: number;
  /** Runs of each case at the short timings. @defaultValue 3 (1 with quick) */
  shortRuns?: number;
  quick?: boolean;
  log?: (line: string) => void;
}

/** The short timings first (seconds), then the course's (minutes); the two cases take turns. */
export async function runRecoveryBench(options: RecoveryBenchOptions = {}): Promise<RecoveryBenchResult> {
  const courseRuns = options.courseRuns ?? (options.quick ? 0 : 1);
  const shortRuns = options.shortRuns ?? (options.quick ? 1 : 3);
  const log = options.log ?? console.log;
  const plan: Array<{ timings: TimingsName; run: number }> = [
    ...Array.from({ length: shortRuns }, (_, i) => ({ timings: 'short' as const, run: i + 1 })),
    ...Array.from({ length: courseRuns }, (_, i) => ({ timings: 'course' as const, run: i + 1 })),
  ];
  const total = plan.length * RECOVERY_CASES.length;
  const runs: RecoveryRun[] = [];
  for (const { timings, run } of plan) {
    for (const recoveryCase of RECOVERY_CASES) {
      if (timings === 'course')
        log(`  ${caseLabel(recoveryCase.id)} at the course's timings: the real timers run (about a minute)`);
      const measured = await runRecoveryCase(recoveryCase, timings, run);
      runs.push(measured);
      log(describeRecoveryRun(runs.length, total, measured));
    }
  }
  const timings = {
    course: describeRecoveryTimings(timingsOf('course')),
    short: describeRecoveryTimings(timingsOf('short')),
  };
  return { settings: { courseRuns, shortRuns, timings }, runs };
}

/** `--quick`, `--course-runs N`, `--short-runs N` (a `--` that pnpm passes through is dropped). */
export function parseRecoveryArgs(args: readonly string[]): Omit<RecoveryBenchOptions, 'log'> {
  const { values } = parseArgs({
    args: args.filter((a) => a !== '--'),
    options: { quick: { type: 'boolean' }, 'course-runs': { type: 'string' }, 'short-runs': { type: 'string' } },
    strict: true,
  });
  const count = (name: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0 || value > 20)
      throw new Error(`--${name} takes a whole number from 0 to 20; got "${text}"`);
    return value;
  };
  return {
    quick: values.quick ?? false,
    courseRuns: count('course-runs', values['course-runs']),
    shortRuns: count('short-runs', values['short-runs']),
  };
}

const RESULTS_DIR = fileURLToPath(new URL('../bench-results', import.meta.url));

async function main(): Promise<void> {
  const options = parseRecoveryArgs(process.argv.slice(2));
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  const result = await runRecoveryBench(options);
  console.log('\nMedians:');
  for (const m of recoveryMedians(result)) {
    console.log(
      `  ${caseLabel(m.case)}, ${m.timings} timings: running again after ${m.toRunningSeconds.toFixed(2)} s, succeeded after ${m.toSucceededSeconds.toFixed(2)} s; ` +
        `budget ${m.budget}${m.timings === 'course' ? `; the course's ${m.courseBudgetSeconds} s` : ''}; ${m.passed} of ${m.runs} passed`,
    );
  }
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `recovery-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nEvery run: ${file}`);
}

runMain(import.meta.url, main);
