// `pnpm lab report [--json | --csv]`: what an instructor collects from a student's checkout (or a
// fork's CI run), one row per graded thing, from the records the commands leave in each lab folder:
//
//   .lab-result.json        pnpm lab NN           every check's last outcome and duration
//   .repeat-result.json     pnpm lab NN --repeat  how often each check passed and failed over the repeats
//   .exercise-result.json   pnpm lab NN --exercise  the exercise's last grade
//   .walk-result.json       pnpm lab NN --walk    the doc's walk: steps passed, failed, not walked
//
// The fields of a row (the same in the table, the JSON and the CSV):
//   lesson      the two-digit lesson number
//   kind        check | exercise | walk
//   id          the check's id; "exercise" or "walk" for the other two kinds
//   outcome     passed | failed | not run
//   ms          how long it took (a check, a walk; empty for an exercise)
//   finishedAt  when the record was written (ISO 8601, UTC)
//   runs        --repeat runs recorded for the check (0 when it was never repeated)
//   flaky       of those runs, how many disagreed with the majority outcome (0 = stable)
//   detail      the check's observation when it failed; the walk's counts
import { writeFileSync } from 'node:fs';
import { findLab, labRecordPath, readJsonFile, readResult, type Lab } from './labs.ts';
import { LESSONS } from './lessons.ts';
import { readExerciseResult } from './progress.ts';
import type { RepeatSummary } from './repeat.ts';
import { walkResultPath } from './walk/index.ts';

export interface ReportRow {
  lesson: string;
  kind: 'check' | 'exercise' | 'walk';
  id: string;
  outcome: 'passed' | 'failed' | 'not run';
  ms: number | null;
  finishedAt: string | null;
  runs: number;
  flaky: number;
  detail: string;
}

export const REPORT_FIELDS = [
  'lesson',
  'kind',
  'id',
  'outcome',
  'ms',
  'finishedAt',
  'runs',
  'flaky',
  'detail',
] as const;

/** What `--repeat` leaves: per check id, how often it passed and failed. */
export interface RepeatRecord {
  lesson: string;
  finishedAt: string;
  runs: number;
  checks: Record<string, { passes: number; failures: number }>;
}

export const repeatResultPath = (lab: Lab) => labRecordPath(lab, '.repeat-result.json');

/** Remembers a --repeat run's counts, for the report's flaky column. */
export function writeRepeatRecord(lab: Lab, summary: RepeatSummary): void {
  const checks = Object.fromEntries(
    [...summary.stablePassing, ...summary.stableFailing, ...summary.varying].map((c) => [
      c.id,
      { passes: c.passes, failures: c.failures },
    ]),
  );
  const record: RepeatRecord = {
    lesson: lab.lesson.number,
    finishedAt: new Date().toISOString(),
    runs: summary.runs,
    checks,
  };
  writeFileSync(repeatResultPath(lab), `${JSON.stringify(record, null, 2)}\n`);
}

interface WalkRecord {
  passed: number;
  failed: number;
  notWalked?: number;
  ms?: number;
  finishedAt?: string;
}

/** The rows of one lesson, from whatever records its lab folder holds. */
export function lessonRows(lab: Lab): ReportRow[] {
  const lesson = lab.lesson.number;
  const rows: ReportRow[] = [];
  const result = readResult(lab);
  const repeat = readJsonFile<RepeatRecord>(repeatResultPath(lab));
  for (const check of result?.results ?? []) {
    const counts = repeat?.checks[check.id];
    rows.push({
      lesson,
      kind: 'check',
      id: check.id,
      outcome: check.ok ? 'passed' : 'failed',
      ms: check.ms,
      finishedAt: result?.finishedAt ?? null,
      runs: counts ? counts.passes + counts.failures : 0,
      flaky: counts ? Math.min(counts.passes, counts.failures) : 0,
      detail: check.ok ? '' : check.observed.slice(0, 200),
    });
  }
  if (!result) rows.push(notRun(lesson, 'check', 'checks'));
  if (lab.exercise) {
    const grade = readExerciseResult(lab);
    rows.push(
      grade
        ? {
            ...notRun(lesson, 'exercise', 'exercise'),
            outcome: grade.passed ? 'passed' : 'failed',
            finishedAt: grade.finishedAt,
          }
        : notRun(lesson, 'exercise', 'exercise'),
    );
  }
  const walk = readJsonFile<WalkRecord>(walkResultPath(lab));
  rows.push(
    walk
      ? {
          ...notRun(lesson, 'walk', 'walk'),
          outcome: walk.failed === 0 ? 'passed' : 'failed',
          ms: walk.ms ?? null,
          finishedAt: walk.finishedAt ?? null,
          detail: `${walk.passed} passed, ${walk.failed} failed, ${walk.notWalked ?? 0} not walked`,
        }
      : notRun(lesson, 'walk', 'walk'),
  );
  return rows;
}

const notRun = (lesson: string, kind: ReportRow['kind'], id: string): ReportRow => ({
  lesson,
  kind,
  id,
  outcome: 'not run',
  ms: null,
  finishedAt: null,
  runs: 0,
  flaky: 0,
  detail: '',
});

export function reportRows(): ReportRow[] {
  return LESSONS.flatMap((lesson) => {
    const lab = findLab(lesson);
    return lab ? lessonRows(lab) : [];
  });
}

/** RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. */
const csvField = (value: string | number | null): string => {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export function formatCsv(rows: readonly ReportRow[]): string {
  return [REPORT_FIELDS.join(','), ...rows.map((row) => REPORT_FIELDS.map((f) => csvField(row[f])).join(','))].join(
    '\n',
  );
}

/** The table: one line per lesson (checks passed of all, exercise, walk, flaky checks), then the failed rows. */
export function formatTable(rows: readonly ReportRow[]): string[] {
  const lessons = [...new Set(rows.map((row) => row.lesson))];
  const lines = ['lesson  checks        exercise  walk      flaky checks'];
  for (const lesson of lessons) {
    const mine = rows.filter((row) => row.lesson === lesson);
    const checks = mine.filter((row) => row.kind === 'check' && row.outcome !== 'not run');
    const passed = checks.filter((row) => row.outcome === 'passed').length;
    const exercise = mine.find((row) => row.kind === 'exercise')?.outcome ?? '-';
    const walk = mine.find((row) => row.kind === 'walk')?.outcome ?? '-';
    const flaky = checks.filter((row) => row.flaky > 0).length;
    const checksText = checks.length === 0 ? 'not run' : `${passed}/${checks.length}`;
    lines.push(`${lesson.padEnd(8)}${checksText.padEnd(14)}${exercise.padEnd(10)}${walk.padEnd(10)}${flaky}`);
  }
  const failed = rows.filter((row) => row.outcome === 'failed');
  if (failed.length > 0) {
    lines.push('', 'failed:');
    for (const row of failed) lines.push(`  ${row.lesson} ${row.kind} ${row.id}${row.detail ? `: ${row.detail}` : ''}`);
  }
  return lines;
}
