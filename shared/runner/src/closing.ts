// The closing section of `pnpm test`: one line per kind of result, how long the run took,
// and the single `N passed, N failed` line CI and students read last.
import { formatSummary } from '@tasks-lab/lab-kit';
import type { Leftover } from './leftovers.ts';

export interface Tally {
  passed: number;
  failed: number;
}

export interface RunTotals {
  tests: Tally;
  checks: Tally;
  exercises: Tally;
  /** Lessons whose course coverage holds (passed) or has problems (failed). */
  coverage: Tally;
  /** The lesson walks' steps (`pnpm lab NN --walk` for every lesson), and how many are marked not walked. */
  walks: Tally & { notWalked: number };
  /** The soak's invariants (`pnpm soak -- --profile ci`): one result each. */
  soak: Tally;
  leakedSecrets: number;
  /** `pnpm lint` (Biome): the errors it found; warnings are shown but do not fail. Absent: not run. */
  lint?: { errors: number; warnings: number };
  leftovers: Leftover[];
  /** Packages that should have reported in this run and did not. */
  missing: string[];
  /** Each failed vitest test and verify check, one line each ("<package> test <file> › <title>: <why>"). */
  failures: string[];
  turboStatus: number;
  elapsedMs: number;
  /** How long each part of the run took, in order (turbo, walks, soak...), shown beside the total. */
  phases?: { name: string; ms: number }[];
}

/** The parts of vitest's JSON report (reporters: json) that name a failed test. */
export interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults?: {
    name: string;
    message?: string;
    assertionResults?: { title: string; status: string; failureMessages?: string[] }[];
  }[];
}

/** The parts of a verify's .lab-result.json that name a failed check. */
export interface LabResult {
  passed: number;
  failed: number;
  finishedAt: string;
  results?: { id: string; ok: boolean; observed?: string }[];
}

/** The first line of a failure's text, cut to a length that fits one line of a CI log. */
function firstLine(text: string | undefined, max = 200): string {
  const line =
    (text ?? '')
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** One line per failed test of a package: "<package> test <file> › <title>: <first line of the error>". */
export function failedTests(packageName: string, packageDir: string, report: VitestReport): string[] {
  const lines: string[] = [];
  for (const file of report.testResults ?? []) {
    const where = file.name.startsWith(`${packageDir}/`) ? file.name.slice(packageDir.length + 1) : file.name;
    const failed = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const test of failed)
      lines.push(`${packageName} test ${where} › ${test.title}: ${firstLine(test.failureMessages?.[0])}`);
    // A file that failed outside any test (an import error, a failed beforeAll) has no failed assertion.
    if (failed.length === 0 && file.message) lines.push(`${packageName} test ${where}: ${firstLine(file.message)}`);
  }
  return lines;
}

/** One line per failed verify check: "<package> verify <check id>: <what it observed>". */
export function failedChecks(packageName: string, result: LabResult): string[] {
  return (result.results ?? [])
    .filter((r) => !r.ok)
    .map((r) => `${packageName} verify ${r.id}: ${firstLine(r.observed)}`);
}

/** The parts of a walk's .walk-result.json that name a failed step. */
export interface WalkResult {
  doc: string;
  steps: { index: number; line: number; outcome: string; observed: string }[];
  problems: string[];
}

/** One line per failed walk step or problem: "walk 11 step 5 (docs/11-mysql-leases.md:152): <why>". Steps not run after it are not named. */
export function failedWalkSteps(lesson: string, result: WalkResult): string[] {
  const steps = result.steps
    .filter((s) => s.outcome === 'failed')
    .map((s) => `walk ${lesson} step ${s.index} (${result.doc}:${s.line}): ${firstLine(s.observed)}`);
  return [...steps, ...result.problems.map((p) => `walk ${lesson}: ${firstLine(p)}`)];
}

/** 8.4s, 1m 01s, 1h 02m 03s. */
export function formatElapsed(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${(ms / 1000).toFixed(1)}s`;
  const two = (n: number) => String(n).padStart(2, '0');
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  return h > 0 ? `${h}h ${two(m)}m ${two(s)}s` : `${m}m ${two(s)}s`;
}

/** At most this many failure lines: a run where everything broke says so without a page of them. */
export const MAX_FAILURE_LINES = 20;

export function closingSection(totals: RunTotals): { lines: string[]; failed: number } {
  const { tests, checks, exercises, coverage, walks, soak, leakedSecrets, leftovers, missing, failures, turboStatus } =
    totals;
  const lintErrors = totals.lint?.errors ?? 0;
  const lines = [
    // Named here, at the end, because CI often shows only the tail of a long run: a failure
    // far above (in one lab's output among 54 turbo tasks) must still be findable by name.
    ...failures.slice(0, MAX_FAILURE_LINES).map((line) => `failed: ${line}`),
    ...(failures.length > MAX_FAILURE_LINES
      ? [`failed: … and ${failures.length - MAX_FAILURE_LINES} more (see above)`]
      : []),
    `vitest tests:     ${formatSummary(tests)}`,
    `verify checks:    ${formatSummary(checks)}`,
    `exercise checks:  ${formatSummary(exercises)}`,
    `course coverage:  ${formatSummary(coverage)} (lessons)`,
    `lesson walks:     ${formatSummary(walks)} (steps; ${walks.notWalked} marked not walked)`,
    `soak invariants:  ${formatSummary(soak)} (short profile)`,
    ...(totals.lint
      ? [
          `lint:             ${lintErrors === 0 ? 'no errors' : `${lintErrors} error(s)`}, ${totals.lint.warnings} warning(s) (pnpm lint)`,
        ]
      : []),
    `secrets:          ${leakedSecrets === 0 ? 'no generated password appears in the output' : `${leakedSecrets} generated password(s) appear in the output`}`,
    `processes:        ${leftovers.length === 0 ? 'nothing the labs started is still running' : `${leftovers.length} left running`}`,
    ...leftovers.map((p) => `left running: pid ${p.pid} ${p.command}`),
    ...missing.map((line) => `missing: ${line}`),
  ];
  if (turboStatus !== 0) lines.push(`turbo exited with ${turboStatus}: a typecheck, test or verify failed (see above)`);
  const failed =
    tests.failed +
    checks.failed +
    exercises.failed +
    coverage.failed +
    walks.failed +
    soak.failed +
    missing.length +
    leakedSecrets +
    lintErrors +
    leftovers.length +
    (turboStatus === 0 ? 0 : 1);
  const passed = tests.passed + checks.passed + exercises.passed + coverage.passed + walks.passed + soak.passed;
  const phases = (totals.phases ?? []).map((phase) => `${phase.name} ${formatElapsed(phase.ms)}`);
  lines.push(
    `time:             ${formatElapsed(totals.elapsedMs)}${phases.length > 0 ? ` (${phases.join(', ')})` : ''}`,
    formatSummary({ passed, failed }),
  );
  return { lines, failed };
}
