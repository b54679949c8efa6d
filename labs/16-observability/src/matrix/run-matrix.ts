// Runs the failure matrix: one row at a time (the course: "never inject two faults at once, or
// you cannot tell which mechanism recovered"), each on its own database, prefix and artifacts
// folder, and writes for each row its evidence record (<case>.json), its timeline (<case>.svg)
// and, after every row, the summary (summary.md) of THIS run.
//
// The evidence folder holds one run: a session clears the files it writes (every case's .json
// and .svg, and summary.md) before its first row, so a record from an earlier run is never read
// as this run's. `pnpm matrix` and the checks (scripts/matrix-checks.ts) both run a session.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureInfra } from '@tasks-lab/infra';
import { errorMessage, withResources, type CheckOutcome } from '@tasks-lab/lab-kit';
import { EVIDENCE_DIR, readShortObservabilityOptions, type ObservabilityOptionValues } from '../options.ts';
import { describeBudget, recoveryBudgetSeconds } from './budget.ts';
import { MATRIX_CASES } from './catalogue.ts';
import { countDuplicateDeliveries, secondsBetween, type EvidenceRecord } from './evidence.ts';
import { openRowLab, type RowSetup } from './harness.ts';
import { MATRIX_PARTS, type MatrixParts } from './parts.ts';
import type { MatrixRow, RowRun } from './row.ts';
import { selectRows } from './rows.ts';
import { renderSummary } from './summary.ts';
import { renderTimeline } from './timeline.ts';

export const SUMMARY_FILE = 'summary.md';

/**
 * The matrix's timings: the short ones (a 1.5 s lease, a 500 ms backoff, a 1 s unclaimed
 * threshold, a 200 ms scan), NOT read from the environment: every wait of a row is sized for
 * them, and two runs' recovery times compare only when they ran with the same timings.
 */
export const matrixTimings = (): ObservabilityOptionValues => readShortObservabilityOptions({});

/** What a run is given. */
export interface MatrixOptions {
  /** @defaultValue EVIDENCE_DIR (labs/16-observability/evidence) */
  outDir?: string;
  /** @defaultValue matrixTimings() */
  timings?: ObservabilityOptionValues;
  /** Broken parts (the can-fail tests); the rest stay the lab's. */
  parts?: Partial<MatrixParts>;
}

/** Where a row's files went. */
export interface RowFiles {
  json: string;
  svg: string;
}

// ---- one row -----------------------------------------------------------------------------------

const nowIso = () => new Date().toISOString();

function baseRecord(row: MatrixRow, startedAt: string): EvidenceRecord<unknown> {
  return {
    case: row.id,
    title: row.title,
    course_row: row.courseRow,
    kind: row.kind,
    fault: row.fault,
    job_id: null,
    started_at: startedAt,
    finished_at: startedAt,
    observed_states: [],
    deliveries: [],
    sends: null,
    duplicate_deliveries: null,
    injected: [],
    recovery_seconds: null,
    recovery_measure: row.recoveryMeasure,
    recovery_window: null,
    recovery_budget_seconds: null,
    recovery_budget: null,
    artifact_sha256: null,
    expected: row.expected,
    observed: '',
    result: 'not_run',
    details: {},
  };
}

/**
 * Runs one row for real and returns its evidence, its result set by the row's judge. A row
 * that cannot run (its worker script is missing) is not_run with the reason; a row whose
 * scenario threw is a failure that says so (a thrown row is never not_run, and never a pass).
 */
export async function runRow(row: MatrixRow, setup: RowSetup, signal?: AbortSignal): Promise<EvidenceRecord<unknown>> {
  const missing = row.cannotRun?.(setup.parts);
  if (missing)
    return { ...baseRecord(row, nowIso()), finished_at: nowIso(), observed: `not run: ${missing}`, reason: missing };
  return withResources(signal, async (res) => {
    const index = MATRIX_CASES.findIndex((c) => c.id === row.id) + 1;
    const lab = await openRowLab(res, setup, `matrix${String(index).padStart(2, '0')}`);
    const startedAt = new Date(lab.rec.startedAt).toISOString();
    let run: RowRun<unknown> | undefined;
    let thrown: unknown;
    try {
      run = await row.scenario(lab);
    } catch (err) {
      if (res.signal.aborted) throw err;
      thrown = err;
    }
    await lab.rec.stopWatching();
    const recoverySeconds = run?.recovery ? secondsBetween(run.recovery.fromMs, run.recovery.toMs) : null;
    const record: EvidenceRecord<unknown> = {
      ...baseRecord(row, startedAt),
      job_id: run?.jobId ?? null,
      finished_at: nowIso(),
      observed_states: lab.rec.states,
      deliveries: lab.rec.deliveries,
      sends: run?.sends ?? null,
      duplicate_deliveries: run?.workerRan ? countDuplicateDeliveries(lab.rec.deliveries) : null,
      injected: lab.rec.injected,
      recovery_seconds: recoverySeconds,
      recovery_window:
        recoverySeconds === null || !run?.recovery
          ? null
          : { from_ms: run.recovery.fromMs!, to_ms: run.recovery.toMs! },
      recovery_budget_seconds: row.budget ? recoveryBudgetSeconds(row.budget, setup.timings) : null,
      recovery_budget: row.budget ? `${row.budget} path: ${describeBudget(row.budget, setup.timings)}` : null,
      artifact_sha256: run?.artifactSha256 ?? null,
      details: run?.details ?? { reports: lab.reports },
    };
    if (!run) {
      const why = `the row threw: ${errorMessage(thrown).slice(0, 300)}`;
      return { ...record, result: 'fail', observed: why, reason: why };
    }
    const verdict = judgeRun(row, record);
    return { ...record, result: verdict.ok ? 'pass' : 'fail', observed: verdict.observed };
  });
}

/**
 * The row's judge on a finished record, then its budget: pure. A record that did not run, or
 * whose scenario threw, fails with what it says (a check that did not run cannot pass). A
 * recovery that took longer than its budget fails too: it recovered, but not as promised.
 */
export function judgeRecord(row: MatrixRow, record: EvidenceRecord<unknown>): CheckOutcome {
  if (record.result === 'not_run') return { ok: false, observed: record.observed };
  if (record.reason !== undefined) return { ok: false, observed: record.observed };
  return judgeRun(row, record);
}

/** A row that ran: its own judge, then its recovery against its budget. */
function judgeRun(row: MatrixRow, record: EvidenceRecord<unknown>): CheckOutcome {
  const verdict = row.judge(record);
  const budget = record.recovery_budget_seconds;
  if (budget === null || record.recovery_seconds === null) return verdict;
  const within = record.recovery_seconds <= budget;
  const said = `recovery ${record.recovery_seconds.toFixed(2)} s ${within ? 'within' : 'OVER'} its budget ${budget} s${within ? '' : ` (EXPECTED at most ${record.recovery_budget ?? budget})`}`;
  return { ok: verdict.ok && within, observed: `${verdict.observed}; ${said}` };
}

/** "recovered in 2.41 s (kill -> succeeded)", "no recovery (a refusal)", or what is missing. */
export function recoveryText(
  record: Pick<EvidenceRecord<unknown>, 'result' | 'recovery_seconds' | 'recovery_measure'> &
    Partial<Pick<EvidenceRecord<unknown>, 'recovery_budget_seconds'>>,
): string {
  if (record.result === 'not_run') return 'not run';
  const budget = record.recovery_budget_seconds ? `, budget ${record.recovery_budget_seconds} s` : '';
  if (record.recovery_seconds !== null)
    return `recovered in ${record.recovery_seconds.toFixed(2)} s (${record.recovery_measure}${budget})`;
  // A measure in parentheses is the reason the row has none; any other was expected and not seen.
  return record.recovery_measure.startsWith('(')
    ? `no recovery ${record.recovery_measure}`
    : `NOT recovered (${record.recovery_measure} never observed)`;
}

// ---- files -----------------------------------------------------------------------------------

/** Writes the row's evidence record and timeline into `outDir`. */
export async function writeRowFiles(outDir: string, record: EvidenceRecord<unknown>): Promise<RowFiles> {
  await mkdir(outDir, { recursive: true });
  const files = { json: join(outDir, `${record.case}.json`), svg: join(outDir, `${record.case}.svg`) };
  await writeFile(files.json, `${JSON.stringify(record, null, 2)}\n`);
  await writeFile(files.svg, renderTimeline(record));
  return files;
}

/** Writes summary.md for these records (the cases without one are this run's not_run). */
export async function writeSummary(
  outDir: string,
  records: readonly EvidenceRecord<unknown>[],
  generatedAt: Date = new Date(),
): Promise<string> {
  await mkdir(outDir, { recursive: true });
  const file = join(outDir, SUMMARY_FILE);
  await writeFile(file, renderSummary(records, { generatedAt }));
  return file;
}

/** Removes the files a run writes (never anything else the folder may hold). */
export async function clearEvidence(outDir: string): Promise<void> {
  const names = [SUMMARY_FILE, ...MATRIX_CASES.flatMap((c) => [`${c.id}.json`, `${c.id}.svg`])];
  await Promise.all(names.map((name) => rm(join(outDir, name), { force: true })));
}

// ---- a session: one run, one folder ---------------------------------------------------------

/**
 * One run of (some of) the matrix into one folder: the folder is cleared before the first row,
 * each row's files are written when it ends, and the summary is rewritten after every row
 * with the records of this run only.
 */
export class MatrixSession {
  readonly outDir: string;
  readonly setup: RowSetup;
  readonly #records = new Map<string, EvidenceRecord<unknown>>();
  #cleared: Promise<void> | undefined;
  #infra: Promise<unknown> | undefined;

  constructor(options: MatrixOptions = {}) {
    this.outDir = options.outDir ?? EVIDENCE_DIR;
    this.setup = { timings: options.timings ?? matrixTimings(), parts: { ...MATRIX_PARTS, ...options.parts } };
  }

  /** This run's records, in the matrix's order. */
  records(): EvidenceRecord<unknown>[] {
    return MATRIX_CASES.flatMap((c) => this.#records.get(c.id) ?? []);
  }

  /** Runs one row and writes its files and the summary. */
  async run(row: MatrixRow, signal?: AbortSignal): Promise<{ record: EvidenceRecord<unknown>; files: RowFiles }> {
    await (this.#cleared ??= clearEvidence(this.outDir));
    await (this.#infra ??= ensureInfra({ services: ['redis', 'mysql'] }));
    const record = await runRow(row, this.setup, signal);
    this.#records.set(row.id, record);
    const files = await writeRowFiles(this.outDir, record);
    await writeSummary(this.outDir, this.records());
    return { record, files };
  }
}

export interface RunMatrixOptions extends MatrixOptions {
  /** Only these rows (ids); the others are this run's not_run. @defaultValue every row */
  only?: readonly string[];
  signal?: AbortSignal;
  /** Before each row. */
  onStart?: (row: MatrixRow, index: number, total: number) => void;
  /** After each row, with its record and files. */
  onRow?: (record: EvidenceRecord<unknown>, files: RowFiles, index: number, total: number) => void;
}

/** Runs the rows one after another; returns their records (files written as it goes). */
export async function runMatrix(options: RunMatrixOptions = {}): Promise<EvidenceRecord<unknown>[]> {
  const rows = selectRows(options.only);
  const session = new MatrixSession(options);
  for (const [i, row] of rows.entries()) {
    options.signal?.throwIfAborted();
    options.onStart?.(row, i + 1, rows.length);
    const { record, files } = await session.run(row, options.signal);
    options.onRow?.(record, files, i + 1, rows.length);
  }
  if (rows.length === 0) await writeSummary(session.outDir, []);
  return session.records();
}
