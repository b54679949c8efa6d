// The gate benchmark's arithmetic and text (scripts/bench-stats.ts): pure, no database.
// The benchmark itself is run by hand (`pnpm bench:gate`); what it reports must add up.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SETTINGS,
  formatRate,
  formatRatio,
  formatTable,
  parseBenchArgs,
  parseConcurrencyList,
  progressLine,
  resultFileName,
  summarize,
  type RunRecord,
  unsteadyCells,
} from '../scripts/bench-stats.ts';

describe('formatRate', () => {
  it('When a rate is printed, Then it is a whole number; a missing one is "–"', () => {
    expect(formatRate(511.6)).toBe('512');
    expect(formatRate(Number.NaN)).toBe('–');
  });
});

describe('formatRatio', () => {
  it('When a gate does 480 /s and the hot row 1000 /s, Then the ratio reads 0.48×', () => {
    expect(formatRatio(480, 1000)).toBe('0.48×');
    expect(formatRatio(2050, 1000)).toBe('2.05×');
  });

  it('When the base is 0 or missing, Then there is no ratio', () => {
    expect(formatRatio(480, 0)).toBe('–');
    expect(formatRatio(480, Number.NaN)).toBe('–');
  });
});

function record(
  design: RunRecord['design'],
  concurrency: number,
  run: number,
  perSecond: number,
  extra: Partial<RunRecord> = {},
): RunRecord {
  return {
    design,
    concurrency,
    run,
    committed: perSecond,
    ms: 1000,
    perSecond,
    rounds: 1,
    busy: 0,
    retries: 0,
    ...extra,
  };
}

describe('the table', () => {
  const ms = (p50: number, p99: number) => ({ latencyMs: { p50, p99 } });
  const runs: RunRecord[] = [
    record('hot-row', 1, 1, 1000),
    record('hot-row', 1, 2, 1200),
    record('hot-row', 1, 3, 900),
    record('course', 1, 1, 300, ms(3, 6)),
    record('course', 1, 2, 250, ms(4, 8)),
    record('course', 1, 3, 310, ms(3, 7)),
    record('counter', 1, 1, 600, ms(1.5, 3)),
    record('counter', 1, 2, 650, ms(1.4, 2.5)),
    record('counter', 1, 3, 590, ms(1.6, 3.5)),
    record('grouped', 1, 1, 610, { ...ms(1.5, 3), groupSize: 1 }),
    record('hot-row', 32, 1, 2000),
    record('course', 32, 1, 500, ms(60, 90)),
    record('counter', 32, 1, 1500, ms(20, 40)),
    record('grouped', 32, 1, 3000, { ...ms(10, 18), groupSize: 12.5 }),
  ];

  it('When runs are summarized, Then each design gets its median rate and latencies at each concurrency, in the order asked', () => {
    const [at32, at1] = summarize(runs, [32, 1]);
    expect(at32).toEqual({
      concurrency: 32,
      perSecond: { 'hot-row': 2000, course: 500, counter: 1500, grouped: 3000 },
      latencyMs: { course: { p50: 60, p99: 90 }, counter: { p50: 20, p99: 40 }, grouped: { p50: 10, p99: 18 } },
      groupSize: 12.5,
    });
    expect(at1).toMatchObject({
      concurrency: 1,
      perSecond: { 'hot-row': 1000, course: 300, counter: 600, grouped: 610 },
      latencyMs: { course: { p50: 3, p99: 7 }, counter: { p50: 1.5, p99: 3 } },
      groupSize: 1,
    });
  });

  it('When the medians are formatted, Then the table is this Markdown, ratios to the hot row, the grouped gate against the counter gate, latencies in ms', () => {
    expect(formatTable(summarize(runs, [1, 32]))).toBe(
      [
        '| concurrency | hot row tx/s | course gate /s (ratio) | counter gate /s (ratio) | grouped gate /s (ratio) | counter ÷ course | grouped ÷ counter | per group | counter p50 / p99 ms | grouped p50 / p99 ms |',
        '|------------:|-------------:|-----------------------:|------------------------:|------------------------:|-----------------:|------------------:|----------:|---------------------:|---------------------:|',
        '|           1 |         1000 |            300 (0.30×) |             600 (0.60×) |             610 (0.61×) |            2.00× |             1.02× |       1.0 |            1.5 / 3.0 |            1.5 / 3.0 |',
        '|          32 |         2000 |            500 (0.25×) |            1500 (0.75×) |            3000 (1.50×) |            3.00× |             2.00× |      12.5 |          20.0 / 40.0 |          10.0 / 18.0 |',
      ].join('\n'),
    );
  });

  it('When a concurrency has no runs, Then its row shows "–" instead of a number', () => {
    expect(formatTable(summarize(runs, [4]))).toContain(
      '|           4 |            – |                  – (–) |                   – (–) |                   – (–) |                – |                 – |         – |                – / – |                – / – |',
    );
  });

  it('When a run is reported, Then the progress line names its step, design, clients and rate', () => {
    expect(progressLine(3, 36, { design: 'course', concurrency: 4, run: 2, perSecond: 511.8, busy: 0 })).toBe(
      '[3/36] course gate, 4 clients, run 2: 512 /s',
    );
    expect(progressLine(1, 36, { design: 'hot-row', concurrency: 1, run: 1, perSecond: 1000, busy: 2 })).toBe(
      '[1/36] hot row, 1 client, run 1: 1000 /s (2 answered busy)',
    );
  });
});

describe('the command line and the file name', () => {
  it('When nothing is given, Then the defaults apply: 3 runs of 1.5 s at 1, 4, 16 and 32 clients', () => {
    expect(parseBenchArgs([])).toEqual(DEFAULT_SETTINGS);
    expect(DEFAULT_SETTINGS).toMatchObject({ runs: 3, seconds: 1.5, concurrency: [1, 4, 16, 32] });
  });

  it("When pnpm passes '--' and options, Then they are read", () => {
    expect(
      parseBenchArgs(['--', '--runs', '5', '--seconds', '0.5', '--concurrency', '1,8', '--batch', '20']),
    ).toMatchObject({ runs: 5, seconds: 0.5, concurrency: [1, 8], batch: 20 });
  });

  it('When an option is out of range or unknown, Then it is refused with its name', () => {
    expect(() => parseBenchArgs(['--runs', '0'])).toThrow(/--runs/);
    expect(() => parseBenchArgs(['--seconds', 'soon'])).toThrow(/--seconds/);
    expect(() => parseConcurrencyList('1,x')).toThrow(/--concurrency/);
    expect(() => parseConcurrencyList('4,4')).toThrow(/twice/);
    expect(() => parseBenchArgs(['--concurrency', '64', '--batch', '50'])).toThrow(/--batch \(50\) must be larger/);
    expect(() => parseBenchArgs(['--fast'])).toThrow();
  });

  it('When a result is saved, Then its file name is the ISO timestamp without colons', () => {
    expect(resultFileName(new Date('2025-01-02T03:04:05.678Z'))).toBe('gate-2025-01-02T03-04-05-678Z.json');
  });
});

describe('unsteady figures', () => {
  it('When one run is more than 25% away from its median, Then its cell is named with the range', () => {
    const runs = [
      record('counter', 16, 1, 1399),
      record('counter', 16, 2, 712),
      record('counter', 16, 3, 677),
      record('course', 16, 1, 500),
      record('course', 16, 2, 520),
      record('course', 16, 3, 480),
    ];
    expect(unsteadyCells(runs, [16])).toEqual(['counter gate at 16 clients: 677 to 1399 /s']);
  });
});
