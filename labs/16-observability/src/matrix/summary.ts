// The matrix's summary.md: one table row per case, in the course's order, with its result, its
// recovery time, its job and links to its evidence record and timeline, then the totals.
// A case this run did not run is listed as not_run with its reason ("not run in this run"):
// the course's rule is that an item that was not run keeps not_run, never a pass, and the
// summary never mixes in a record from another run.
import { MATRIX_CASES, type MatrixCase } from './catalogue.ts';
import { shortId, type EvidenceRecord, type RowResult } from './evidence.ts';

export interface SummaryOptions {
  generatedAt: Date | string;
  /** The cases, in order. @defaultValue MATRIX_CASES */
  cases?: readonly Pick<MatrixCase, 'id' | 'title' | 'kind'>[];
}

/** The reason a case that has no record in this run shows. */
export const NOT_RUN_IN_THIS_RUN = 'not run in this run';

/** A Markdown table cell: no line breaks, no unescaped pipe. */
const cell = (text: string) => text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');

const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const MARK: Record<RowResult, string> = { pass: 'pass', fail: '**FAIL**', not_run: 'not_run' };

export interface SummaryTotals {
  passed: number;
  failed: number;
  notRun: number;
}

/** Counts per result, a case without a record counting as not_run. */
export function summaryTotals(
  records: readonly Pick<EvidenceRecord<unknown>, 'case' | 'result'>[],
  cases: readonly Pick<MatrixCase, 'id'>[] = MATRIX_CASES,
): SummaryTotals {
  const byCase = new Map(records.map((r) => [r.case, r.result]));
  const results = [
    ...cases.map((c) => byCase.get(c.id) ?? 'not_run'),
    ...records.filter((r) => !cases.some((c) => c.id === r.case)).map((r) => r.result),
  ];
  return {
    passed: results.filter((r) => r === 'pass').length,
    failed: results.filter((r) => r === 'fail').length,
    notRun: results.filter((r) => r === 'not_run').length,
  };
}

/** "3 passed, 1 failed, 12 not_run": the CLI's closing line too. */
export const formatTotals = (t: SummaryTotals): string => `${t.passed} passed, ${t.failed} failed, ${t.notRun} not_run`;

function noteOf(record: EvidenceRecord<unknown>): string {
  if (record.result === 'not_run') return record.reason ?? 'no reason recorded';
  if (record.result === 'fail') return shorten(record.reason ?? record.observed, 160);
  return shorten(record.observed, 120);
}

function rowOf(
  index: number,
  c: Pick<MatrixCase, 'id' | 'title' | 'kind'>,
  record: EvidenceRecord<unknown> | undefined,
): string {
  if (!record) return `| ${index} | ${cell(c.id)} | ${c.kind} | not_run | - | - | - | - | ${NOT_RUN_IN_THIS_RUN} |`;
  const recovery = record.recovery_seconds === null ? '-' : record.recovery_seconds.toFixed(2);
  const ran = record.result !== 'not_run';
  const links = ran ? [`[json](./${record.case}.json)`, `[svg](./${record.case}.svg)`] : ['-', '-'];
  return `| ${index} | ${cell(c.id)} | ${record.kind} | ${MARK[record.result]} | ${recovery} | ${record.job_id ? cell(shortId(record.job_id)) : '-'} | ${links[0]} | ${links[1]} | ${cell(noteOf(record))} |`;
}

/** The summary as Markdown. */
export function renderSummary(records: readonly EvidenceRecord<unknown>[], options: SummaryOptions): string {
  const cases = options.cases ?? MATRIX_CASES;
  const byCase = new Map(records.map((r) => [r.case, r]));
  const generatedAt = typeof options.generatedAt === 'string' ? options.generatedAt : options.generatedAt.toISOString();
  const extra = records.filter((r) => !cases.some((c) => c.id === r.case));
  const lines = [
    '# Failure matrix: evidence summary',
    '',
    `Generated ${generatedAt}. One row per case of the course's matrix (step 4), in its order, then the fault-free regression.`,
    'A result is pass only when the row ran and its judge accepted what was observed; a row that did not run is not_run, with its reason.',
    '',
    '| # | case | kind | result | recovery (s) | job | evidence | timeline | observed / reason |',
    '|---|---|---|---|---|---|---|---|---|',
    ...cases.map((c, i) => rowOf(i + 1, c, byCase.get(c.id))),
    ...extra.map((r, i) => rowOf(cases.length + i + 1, { id: r.case, title: r.title, kind: r.kind }, r)),
    '',
    `Totals: ${formatTotals(summaryTotals(records, cases))} (of ${cases.length + extra.length}).`,
    '',
  ];
  return lines.join('\n');
}
