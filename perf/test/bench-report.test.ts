// What `pnpm bench` writes (scripts/bench-report.ts, scripts/bench-pipeline.ts, and the figures of
// bench-claims.ts, bench-recovery.ts and bench-bounds.ts): pure, no services.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { rewritePage } from '../scripts/bench.ts';
import {
  boundMedians,
  readsBound,
  speedupBound,
  type BoundMeasurement,
  type BoundsBenchResult,
} from '../scripts/bench-bounds.ts';
import {
  claimMedians,
  indexSpeedup,
  parseClaimsArgs,
  type ClaimRun,
  type ClaimsBenchResult,
} from '../scripts/bench-claims.ts';
import {
  parseRecoveryArgs,
  recoveryMedians,
  recoveryTimes,
  type RecoveryBenchResult,
  type RecoveryRun,
} from '../scripts/bench-recovery.ts';
import {
  BENCH_BLOCKS,
  BENCH_TAG,
  NOT_MEASURED,
  pipelineMedians,
  renderBarChart,
  renderBenchmarks,
  renderBoundsSection,
  renderClaimsSection,
  renderRecoverySection,
  type BenchResults,
} from '../scripts/bench-report.ts';
import { blockMarkers, escapeXml, missingBlocks } from '@tasks-lab/lab-kit';
import type { EvidenceRecord } from '@tasks-lab/16-observability';
import type { PipelineRun } from '../scripts/bench-pipeline.ts';

/** Every generated block of a rendered page or section, in one text. */
const textOf = (rendered: { blocks: Partial<Record<string, string>> }) => Object.values(rendered.blocks).join('\n');

const latency = (p50: number, p99: number) => ({
  count: 500,
  p50,
  p90: (p50 + p99) / 2,
  p99,
  p999: p99 * 1.2,
  max: p99 * 1.5,
});

const run = (workers: number, exportsPerSecond: number, p99: number, lost = 0): PipelineRun => ({
  configuration: { workers, publishers: 1 },
  load: {
    mode: 'closed',
    clients: 16,
    seconds: 5,
    accepted: 500,
    refused: 10,
    failed: 0,
    answerMs: latency(10, 40),
    cpuCores: 0.4,
  },
  succeeded: 500,
  notFinished: 0,
  exportsPerSecond,
  totalMs: latency(p99 / 4, p99),
  dispatchMs: latency(5, 20),
  claimMs: latency(3, 10),
  workMs: latency(8, 30),
  jobsWithRecoveryEvent: lost,
  cpuMsPerExport: { api: 4, worker: 6, mariadb: 3 },
  perExport: { statements: 12, transactions: 2, rollbacks: 0.1, redisCommands: 9, redisScripts: 2.5 },
});

/** An open-loop run at `offered` requests/s. */
const openRun = (offered: number, p99: number, clientP99?: number): PipelineRun => {
  const r = run(2, offered, p99);
  return {
    ...r,
    load: { ...r.load, mode: 'open', offeredPerSecond: offered, clients: 64 },
    ...(clientP99 === undefined ? {} : { clientTotalMs: latency(clientP99 / 4, clientP99) }),
  };
};

/** A forms-pass run of one variant. */
const formsRun = (forms: string, exportsPerSecond: number): PipelineRun => ({
  ...run(2, exportsPerSecond, 400),
  forms,
});

const results: BenchResults = {
  startedAt: '2026-11-30T20:00:00.000Z',
  command: 'pnpm bench',
  machine: { cpus: 2, cpuModel: 'test cpu', node: 'v20', server: '10.11-MariaDB', flushLogAtTrxCommit: '1' },
  raw: [1, 4, 16].map((concurrency) => ({ concurrency, jobs: 1000, ms: 1000, jobsPerSecond: 1000 * concurrency })),
  pipeline: [run(1, 100, 900), run(1, 120, 800), run(1, 110, 1200), run(2, 210, 700)],
  configurations: [
    { workers: 1, publishers: 1 },
    { workers: 2, publishers: 1 },
  ],
};

describe('benchmark figures and page', () => {
  it('When runs are summarised, Then each configuration gets the medians of its runs [test:bench-medians]', () => {
    const [one, two] = pipelineMedians(results);
    expect(one).toMatchObject({ exportsPerSecond: 110, total: { p99: 900 }, runs: 3 });
    expect(two).toMatchObject({ exportsPerSecond: 210, total: { p99: 700 }, runs: 1 });
  });

  it('When the page is rendered, Then it has the tables, the charts it links and a verdict per target [test:bench-page-targets]', () => {
    const page = renderBenchmarks(results);
    expect(textOf(page)).toContain('| 1 worker, 1 publisher | 110 |');
    expect(textOf(page)).toMatch(
      /one worker process at concurrency 2: ≥ 180 exports\/s .*\| 110 \| \*\*not met\*\* \|/,
    );
    expect(textOf(page)).toMatch(/≥ 215 exports\/s \| 210 \(2 workers, 1 publisher\) \| \*\*not met\*\* \|/);
    expect(textOf(page)).toMatch(
      /CPU per export .* ≤ 8 ms \| 13\.0 ms at the best configuration \| \*\*not met\*\* \|/,
    );
    expect(textOf(page)).toMatch(/< 500 ms at 80 % of capacity \(open loop\) \| not measured in this run \|/);
    for (const linked of textOf(page).matchAll(/\(benchmarks\/([a-z-]+\.svg)\)/g))
      expect(Object.keys(page.charts)).toContain(linked[1]);
    const fast = renderBenchmarks({ ...results, pipeline: [run(1, 190, 400), run(2, 230, 300)] });
    expect(textOf(fast)).toMatch(/≥ 180 exports\/s .*\| 190 \| met \|/);
    expect(textOf(fast)).toMatch(/≥ 215 exports\/s \| 230 .*\| met \|/);
    const slow = renderBenchmarks({ ...results, pipeline: [run(1, 50, 3000, 2)] });
    expect(textOf(slow)).toMatch(/no wake-up lost .*\| 2 job\(s\).*\*\*not met\*\*/);
    expect(textOf(page)).toMatch(
      /\| 1 worker, 1 publisher \| 0\.0 \| 4\.0 \| 0\.0 \| 6\.0 \| 0\.0 \| 3\.0 \| 0\.0 \| 13\.0 \|/,
    );
  });

  it('When the gate benchmark ran with the grouped gate, Then its table has the grouped rate, group size and latencies, and the hot-row target is judged on the grouped gate [test:bench-gate-grouped-page]', () => {
    const row = (concurrency: number, hot: number, course: number, counter: number, grouped: number) => ({
      concurrency,
      perSecond: { 'hot-row': hot, course, counter, grouped },
      latencyMs: {
        course: { p50: 5, p99: 9 },
        counter: { p50: 2, p99: 4 },
        grouped: { p50: 3, p99: 6 },
      },
      groupSize: 8,
    });
    const gate = {
      settings: { runs: 3, seconds: 1.5 },
      medians: [row(1, 1000, 400, 500, 500), row(16, 2000, 600, 1200, 2400)],
    } as unknown as NonNullable<BenchResults['gate']>;
    const page = renderBenchmarks({ ...results, gate });
    expect(page.blocks.gate).toContain(
      '| 16 | 2000 | 600 (0.30×) | 1200 (0.60×) | 2400 (1.20×) | 8.0 | 2.0 / 4.0 | 3.0 / 6.0 |',
    );
    expect(textOf(page)).toMatch(
      /admissions ≥ 80 % of the hot-row rate \| 120 % \(grouped counter gate, best of 4\+ submitters\) \| met \|/,
    );
    expect(page.charts['admission-gate.svg']).toContain('in groups');
    // A run saved before the grouped gate: judged on the counter gate, and its cells say "–".
    const older = {
      ...gate,
      medians: gate.medians.map(({ perSecond: { grouped: _gone, ...rest }, ...m }) => ({ ...m, perSecond: rest })),
    };
    const old = renderBenchmarks({ ...results, gate: older as unknown as NonNullable<BenchResults['gate']> });
    expect(textOf(old)).toMatch(
      /admissions ≥ 80 % of the hot-row rate \| 60 % \(counter gate, best of 4\+ submitters\) \| \*\*not met\*\* \|/,
    );
    expect(old.blocks.gate).toContain('| 1200 (0.60×) | – (–) |');
  });

  it('When the open loop ran, Then each offered rate has its HDR percentiles, and the 80 % target is judged on the higher rate [test:bench-open-loop-page]', () => {
    const page = renderBenchmarks({ ...results, openLoop: [openRun(105, 200), openRun(168, 450), openRun(168, 650)] });
    expect(page.blocks['pipeline-open']).toContain('On 2 workers, 1 publisher, whose capacity above was 210 exports/s');
    expect(page.blocks['pipeline-open']).toContain('| 105 | 105 | 10 | – / – / – | 50 / 125 / 200 / 240 / 300 |');
    expect(page.blocks['pipeline-open']).toContain('| 168 | 168 | 20 | – / – / – | 138 / 344 / 550 / 660 / 825 |');
    expect(textOf(page)).toMatch(
      /< 500 ms at 80 % of capacity \(open loop\) \| 550 ms at 168 requests\/s, from the job's INSERT \| \*\*not met\*\* \|/,
    );
    const met = renderBenchmarks({ ...results, openLoop: [openRun(105, 200), openRun(168, 450)] });
    expect(textOf(met)).toMatch(
      /< 500 ms at 80 % of capacity \(open loop\) \| 450 ms at 168 requests\/s, from the job's INSERT \| met \|/,
    );
    // From the client's send when the run has it: the wait before the INSERT counts, and decides.
    const client = renderBenchmarks({ ...results, openLoop: [openRun(105, 200, 300), openRun(168, 450, 600)] });
    expect(client.blocks['pipeline-open']).toContain('| 168 | 168 | 10 | 150 / 600 / 720 |');
    expect(textOf(client)).toMatch(
      /< 500 ms at 80 % of capacity \(open loop\) \| 600 ms from the client's send at 168 requests\/s \(450 ms from the job's INSERT\) \| \*\*not met\*\* \|/,
    );
  });

  it("When the forms pass ran, Then each variant's rate, CPU and round trips stand against the defaults' [test:bench-forms-page]", () => {
    const forms = [
      formsRun('the defaults', 200),
      formsRun('three-step claim', 180),
      formsRun("all the course's forms", 100),
    ];
    const page = renderBenchmarks({ ...results, forms });
    const table = page.blocks['pipeline-forms'];
    expect(table).toContain('| the defaults | 200 | 1.00× | 13.0 | 12.0 | 2.00 | 400 | 1 |');
    expect(table).toContain('| three-step claim | 180 | 0.90× |');
    expect(table).toContain(
      "The defaults against all the course's forms together: 2.00× the exports per second, 1.00× the CPU per export, 1.00× the statements.",
    );
    expect(Object.keys(page.charts)).toContain('pipeline-forms.svg');
    expect(renderBenchmarks(results).blocks['pipeline-forms']).toBe(NOT_MEASURED);
  });

  it('When the runs counted round trips, Then each configuration shows its statements, transactions and Redis commands per export [test:bench-round-trips-page]', () => {
    const page = renderBenchmarks(results);
    expect(page.blocks['pipeline-trips']).toContain('| 1 worker, 1 publisher | 12.0 | 2.00 | 0.10 | 9.0 | 2.5 |');
    const old = results.pipeline.map(({ perExport: _, ...r }) => r);
    expect(renderBenchmarks({ ...results, pipeline: old }).blocks['pipeline-trips']).toBe(NOT_MEASURED);
  });

  it('When a profile was taken, Then each kind of process has its flame graph, linked, and its hottest frames [test:bench-flames-page]', () => {
    const page = renderBenchmarks({
      ...results,
      profile: {
        configuration: { workers: 1, publishers: 1 },
        seconds: 8,
        accepted: 900,
        roles: [
          {
            role: 'api',
            chart: 'flame-api.svg',
            processes: 1,
            samples: 10,
            hottest: [{ frame: 'parse a|b node:internal/x:1', share: 0.6 }],
            folded: [
              ['(root);main;parse', 6],
              ['(root);main', 4],
            ],
          },
        ],
      },
    });
    expect(page.blocks.flames).toContain(
      '| [api](benchmarks/flame-api.svg) | 10 | `parse a\\|b node:internal/x:1` 60.0 % |',
    );
    expect(page.charts['flame-api.svg']).toMatch(/^<svg/);
    expect(renderBenchmarks(results).blocks.flames).toBe(NOT_MEASURED);
  });

  it('When a chart is drawn, Then it is one SVG element with a bar and a value per series, and its text escaped [test:bench-chart-svg]', () => {
    const svg = renderBarChart({
      title: 'a < b & c',
      unit: 'u',
      categories: ['x', 'y'],
      series: [{ name: 's', values: [1, Number.NaN] }],
    });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain(escapeXml('a < b & c'));
    expect(svg).not.toContain('a < b & c');
    expect(svg.match(/<rect /g)?.length).toBe(1 + 2 + 1); // background, two bars, one legend swatch
  });

  it('When the page is written again, Then only the marked blocks change and the prose around them is byte-identical [test:bench-prose-kept]', () => {
    const page = readFileSync(new URL('../../docs/benchmarks.md', import.meta.url), 'utf8');
    expect(missingBlocks(page, BENCH_TAG, BENCH_BLOCKS)).toEqual([]);
    const rendered = renderBenchmarks({ ...results, claims, bounds });
    const rewritten = rewritePage(page, rendered);
    // Everything outside the blocks, block by block, is the page's own text.
    const prose = (doc: string) => doc.split(/<!-- bench:begin [a-z-]+ -->[\s\S]*?<!-- bench:end [a-z-]+ -->/);
    expect(prose(rewritten)).toEqual(prose(page));
    for (const name of BENCH_BLOCKS) {
      const { begin, end } = blockMarkers(BENCH_TAG, name);
      expect(rewritten).toContain(`${begin}\n${rendered.blocks[name]}\n${end}`);
    }
    expect(rendered.blocks.recovery).toBe(NOT_MEASURED);
    expect(rewritePage(rewritten, rendered)).toBe(rewritten);
  });

  it("When the page lost a block's markers, Then the rewrite names it and writes nothing [test:bench-markers-missing]", () => {
    expect(() =>
      rewritePage('# Benchmarks\n<!-- bench:begin run -->\n<!-- bench:end run -->\n', renderBenchmarks(results)),
    ).toThrow(/bench:begin pipeline/);
  });
});

// ---- the ordered claims, recovery, and labs 02/05/06 -------------------------------------------

const claimRun = (
  kind: ClaimRun['kind'],
  schema: ClaimRun['schema'],
  claimers: number,
  perSecond: number,
  run = 1,
  empty = 0,
): ClaimRun => ({
  kind,
  schema,
  claimers,
  run,
  backlog: 300,
  taken: 300,
  ms: (300 * 1000) / perSecond,
  perSecond,
  claims: 30,
  empty,
  claimMsP50: 2,
});

const claims: ClaimsBenchResult = {
  settings: { runs: 2, backlog: 300, claimers: [1, 4], outboxBatch: 10, scanBatch: 50 },
  plans: [
    { kind: 'outbox', schema: 'lab', key: 'export_outbox_claim', extra: 'Using where' },
    { kind: 'outbox', schema: 'course', key: 'export_outbox_pending', extra: 'Using where; Using filesort' },
  ],
  runs: [
    claimRun('outbox', 'lab', 4, 1000, 1),
    claimRun('outbox', 'lab', 4, 1400, 2),
    claimRun('outbox', 'course', 4, 500, 1, 20),
    claimRun('outbox', 'course', 4, 700, 2, 30),
    claimRun('outbox', 'lab', 1, 500),
    claimRun('outbox', 'course', 1, 500),
    claimRun('scan', 'lab', 4, 3000),
    claimRun('job', 'lab', 4, 2000),
  ],
};

/** A record as a matrix row leaves it: a fault at `faultAt`, then the sampled states. */
const evidence = (
  faultAt: number,
  what: string,
  states: Array<[number, string, string | null]>,
): Pick<EvidenceRecord<unknown>, 'injected' | 'observed_states'> => ({
  injected: [{ at_ms: faultAt, what }],
  observed_states: states.map(([at_ms, status, lease_token]) => ({ at_ms, status, attempts: 1, lease_token })),
});

const recoveryRun = (
  recoveryCase: RecoveryRun['case'],
  timings: RecoveryRun['timings'],
  toSucceededSeconds: number,
  budgetSeconds: number,
): RecoveryRun => ({
  case: recoveryCase,
  timings,
  run: 1,
  result: 'pass',
  observed: 'ok',
  toRunningSeconds: toSucceededSeconds - 0.05,
  toSucceededSeconds,
  budgetSeconds,
  budget: `${budgetSeconds} s`,
});

const recovery = (runs: RecoveryRun[]): RecoveryBenchResult => ({
  settings: { courseRuns: 1, shortRuns: 1, timings: { course: 'lease 30 s', short: 'lease 1.5 s' } },
  runs,
});

const bound = (
  lab: BoundMeasurement['lab'],
  setting: number,
  run: number,
  measured: number,
  boundValue: number,
): BoundMeasurement => ({ lab, setting, run, measured, bound: boundValue, ms: 100 });
const bounds: BoundsBenchResult = {
  settings: {
    runs: 3,
    cores: 2,
    readDelayMs: 100,
    readsPerSlot: 10,
    slices: 5,
    sliceMs: 20,
    readsPerThread: 4,
    rows: 64,
    rounds: 2000,
  },
  serialCpuShare: 0.97,
  loadAverage: { start: 1, end: 2 },
  measurements: [
    bound('02', 2, 1, 19, 20),
    bound('02', 2, 2, 20, 20),
    bound('02', 2, 3, 18, 20),
    bound('06', 2, 1, 1.5, 2),
    bound('06', 4, 1, 1.2, 2),
  ],
};

describe('the ordered claims, recovery and the early labs on the page', () => {
  it("When claim runs are summarised, Then each cell is the median of its runs and the ratio is the labs' over the course's [test:bench-claims-ratio]", () => {
    const medians = claimMedians(claims);
    expect(medians.find((m) => m.kind === 'outbox' && m.schema === 'lab' && m.claimers === 4)).toMatchObject({
      perSecond: 1200,
      runs: 2,
    });
    expect(medians.find((m) => m.kind === 'outbox' && m.schema === 'course' && m.claimers === 4)).toMatchObject({
      perSecond: 600,
      empty: 50,
    });
    expect(indexSpeedup(medians, 'outbox', 4)).toBe(2);
    expect(indexSpeedup(medians, 'outbox', 1)).toBe(1);
    expect(Number.isNaN(indexSpeedup(medians, 'scan', 4))).toBe(true); // no course-schema run of the scan
  });

  it('When the claims section is rendered, Then it has a row per claimer count with both schemas, the ratio, the job claim and the plans [test:bench-claims-section]', () => {
    const section = renderClaimsSection(claims);
    const text = textOf(section);
    expect(text).toContain('| 4 | 1200 | 600 | 2.00× | 3000 | – | – | 2000 |');
    expect(text).toContain('| 4 | 0 / 50 |');
    expect(text).toContain("course's schema `export_outbox_pending` (Using where; Using filesort)");
    expect(Object.keys(section.charts).sort()).toEqual(['claims-outbox.svg', 'claims-scan.svg']);
    expect(section.charts['claims-outbox.svg']).toContain('job claim (primary key)');
  });

  it("When recovery is read off a row's evidence, Then it runs from the fault to a new token running (or the claim noted first) and to succeeded [test:bench-recovery-times]", () => {
    const killed = evidence(1000, 'SIGKILL worker process 42 (hung)', [
      [500, 'running', 'token-a'],
      [41_000, 'running', 'token-b'],
      [41_050, 'succeeded', 'token-b'],
    ]);
    expect(recoveryTimes(killed, 'SIGKILL')).toEqual({ toRunningSeconds: 40, toSucceededSeconds: 40.05 });
    expect(recoveryTimes(killed, 'SIGKILL', [40_900]).toRunningSeconds).toBe(39.9);
    // A fast job: the sampler never saw it running; the claim that won is the instant.
    const lost = evidence(1000, 'action: the sent wake-up removed from Redis', [
      [200, 'queued', null],
      [61_100, 'succeeded', 'token-c'],
    ]);
    expect(recoveryTimes(lost, 'action: the sent wake-up removed', [500, 61_020])).toEqual({
      toRunningSeconds: 60.02,
      toSucceededSeconds: 60.1,
    });
    expect(recoveryTimes(lost, 'action: the sent wake-up removed')).toEqual({
      toRunningSeconds: null,
      toSucceededSeconds: 60.1,
    });
    expect(recoveryTimes(lost, 'SIGKILL')).toEqual({ toRunningSeconds: null, toSucceededSeconds: null });
  });

  it("When recovery is rendered, Then each timing's rows carry the budget and its ratio, the course's budget at the course's timings, and the targets a verdict [test:bench-recovery-section]", () => {
    const short = recovery([
      recoveryRun('worker-killed', 'short', 2.5, 6.2),
      recoveryRun('lost-dispatch', 'short', 1.1, 5.2),
    ]);
    const quick = renderRecoverySection(short);
    expect(textOf(quick)).toMatch(/\| course's \(lease 30 s\) \| not measured in this run \(`--quick`\) \|/);
    expect(Object.keys(quick.charts)).toEqual(['recovery-short.svg']);
    expect(recoveryMedians(short).map((m) => m.toSucceededSeconds)).toEqual([2.5, 1.1]);

    const full = recovery([
      ...short.runs,
      recoveryRun('worker-killed', 'course', 40.2, 60),
      recoveryRun('lost-dispatch', 'course', 95, 80),
    ]);
    const text = textOf(renderRecoverySection(full));
    expect(text).toContain(
      "| course's (lease 30 s) | worker killed (SIGKILL mid-job) | 1 | 40.15 | 40.20 | 60 | 0.67× | 60 (0.67×) | 1 of 1 |",
    );
    const page = textOf(renderBenchmarks({ ...results, recovery: full }));
    expect(page).toMatch(/recovery after a worker kill ≤ 60 s .*\| 40\.2 s to succeeded .*\| met \|/);
    expect(page).toMatch(/recovery after a lost dispatch ≤ 90 s .*\| 95\.0 s to succeeded .*\*\*not met\*\* \|/);
    expect(textOf(renderBenchmarks({ ...results, recovery: short }))).toMatch(
      /recovery after a worker kill ≤ 60 s .*\| not measured in this run \| – \|/,
    );
  });

  it('When the early labs are summarised, Then each setting is the median of its runs over its bound [test:bench-bounds-ratio]', () => {
    expect(readsBound(2, 100)).toBe(20);
    expect(speedupBound(4, 2)).toBe(2);
    expect(speedupBound(1, 2)).toBe(1);
    const medians = boundMedians(bounds);
    expect(medians.find((m) => m.lab === '02')).toMatchObject({ measured: 19, bound: 20, ratio: 0.95, runs: 3 });
    const text = textOf(renderBoundsSection(bounds));
    expect(text).toContain('| lab 06 process pool | 4 processes | 1.20× | 2.00× | 0.60 |');
    expect(text).toContain('| lab 02 bounded async | 2 reads at once | 19.0 reads/s | 20.0 reads/s | 0.95 |');
  });

  it('When the page holds every part, Then every chart it links is rendered [test:bench-page-links-all]', () => {
    const page = renderBenchmarks({
      ...results,
      claims,
      recovery: recovery([recoveryRun('worker-killed', 'short', 2.5, 6.2)]),
      bounds,
    });
    const linked = [...textOf(page).matchAll(/\(benchmarks\/([a-z-]+\.svg)\)/g)].map((m) => m[1]);
    expect(linked).toEqual(
      expect.arrayContaining(['claims-outbox.svg', 'claims-scan.svg', 'recovery-short.svg', 'bounds.svg']),
    );
    for (const name of linked) expect(Object.keys(page.charts)).toContain(name);
  });

  it('When the benchmarks read their command lines, Then they take the documented flags and refuse a bad count [test:bench-args]', () => {
    expect(parseClaimsArgs(['--', '--runs', '5', '--backlog', '3000'])).toEqual({
      quick: false,
      runs: 5,
      backlog: 3000,
    });
    expect(parseClaimsArgs(['--quick'])).toMatchObject({ quick: true, runs: undefined });
    expect(() => parseClaimsArgs(['--runs', '0'])).toThrow(/--runs takes a whole number/);
    expect(parseRecoveryArgs(['--course-runs', '0', '--short-runs', '2'])).toEqual({
      quick: false,
      courseRuns: 0,
      shortRuns: 2,
    });
    expect(() => parseRecoveryArgs(['--short-runs', 'many'])).toThrow(/--short-runs/);
  });
});
