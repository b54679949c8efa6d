// What `pnpm bench:refusal` computes from its runs, without a database: the medians per
// concurrency and form, each form's rate over the course's, and the table the lesson quotes.
import { describe, expect, it } from 'vitest';
import { formatRefusalTable, summarizeRefusals, type RefusalRun } from '../scripts/bench-refusal.ts';

const run = (
  form: RefusalRun['form'],
  concurrency: number,
  perSecond: number,
  medianMs = 1,
  p99Ms = 2,
): RefusalRun => ({
  form,
  concurrency,
  run: 1,
  refusals: perSecond,
  ms: 1000,
  perSecond,
  medianMs,
  p99Ms,
});

describe('the refusal benchmark', () => {
  it("When three runs of each form are summarized, Then each row is the runs' median and its rate over the course's", () => {
    const runs = [
      ...[500, 520, 480].map((r) => run('count', 16, r, 30, 60)),
      ...[300, 310, 290].map((r) => run('counter', 16, r, 50, 90)),
      ...[5000, 5200, 4800].map((r) => run('early', 16, r, 3, 6)),
    ];
    expect(summarizeRefusals(runs, [16])).toEqual([
      { concurrency: 16, form: 'count', perSecond: 500, medianMs: 30, p99Ms: 60, vsCourse: 1 },
      { concurrency: 16, form: 'counter', perSecond: 300, medianMs: 50, p99Ms: 90, vsCourse: 0.6 },
      { concurrency: 16, form: 'early', perSecond: 5000, medianMs: 3, p99Ms: 6, vsCourse: 10 },
    ]);
  });

  it('When the table is printed, Then each form has its row with the rate, the two times and the ratio', () => {
    const rows = summarizeRefusals([run('count', 1, 400), run('counter', 1, 200), run('early', 1, 2000)], [1]);
    const table = formatRefusalTable(rows);
    expect(table[0]).toBe('| clients | refusal | refusals/s | median | p99 | vs the course |');
    expect(table).toContain("| 1 | course's gate, under the lock | 400 | 1.00 ms | 2.00 ms | 1× |");
    expect(table).toContain('| 1 | early refusal, no lock | 2000 | 1.00 ms | 2.00 ms | 5× |');
  });
});
