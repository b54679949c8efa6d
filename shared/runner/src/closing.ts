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
  /** The soak's invariants (`pnpm soak -- --profile ci`): one result each. */
  soak: Tally;
  leakedSecrets: number;
  leftovers: Leftover[];
  /** Packages that should have reported in this run and did not. */
  missing: string[];
  turboStatus: number;
  elapsedMs: number;
}

/** 8.4s, 1m 01s, 1h 02m 03s. */
export function formatElapsed(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${(ms / 1000).toFixed(1)}s`;
  const two = (n: number) => String(n).padStart(2, '0');
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  return h > 0 ? `${h}h ${two(m)}m ${two(s)}s` : `${m}m ${two(s)}s`;
}

export function closingSection(totals: RunTotals): { lines: string[]; failed: number } {
  const { tests, checks, exercises, coverage, soak, leakedSecrets, leftovers, missing, turboStatus } = totals;
  const lines = [
    `vitest tests:     ${formatSummary(tests)}`,
    `verify checks:    ${formatSummary(checks)}`,
    `exercise checks:  ${formatSummary(exercises)}`,
    `course coverage:  ${formatSummary(coverage)} (lessons)`,
    `soak invariants:  ${formatSummary(soak)} (short profile)`,
    `secrets:          ${leakedSecrets === 0 ? 'no generated password appears in the output' : `${leakedSecrets} generated password(s) appear in the output`}`,
    `processes:        ${leftovers.length === 0 ? 'nothing the labs started is still running' : `${leftovers.length} left running`}`,
    ...leftovers.map((p) => `left running: pid ${p.pid} ${p.command}`),
    ...missing.map((line) => `missing: ${line}`),
  ];
  if (turboStatus !== 0) lines.push(`turbo exited with ${turboStatus}: a typecheck, test or verify failed (see above)`);
  const failed =
    tests.failed + checks.failed + exercises.failed + coverage.failed + soak.failed + missing.length + leakedSecrets + leftovers.length + (turboStatus === 0 ? 0 : 1);
  const passed = tests.passed + checks.passed + exercises.passed + coverage.passed + soak.passed;
  lines.push(`time:             ${formatElapsed(totals.elapsedMs)}`, formatSummary({ passed, failed }));
  return { lines, failed };
}
