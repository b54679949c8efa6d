// What `pnpm bench` writes (scripts/bench-report.ts, scripts/bench-pipeline.ts): pure, no services.
import { describe, expect, it } from 'vitest';
import { keepNotes } from '../scripts/bench.ts';
import { percentile } from '../scripts/bench-pipeline.ts';
import { pipelineMedians, renderBarChart, renderBenchmarks, type BenchResults } from '../scripts/bench-report.ts';
import { escapeXml } from '../src/matrix/timeline.ts';
import type { PipelineRun } from '../scripts/bench-pipeline.ts';

const run = (workers: number, exportsPerSecond: number, p99: number, lost = 0): PipelineRun => ({
  configuration: { workers, publishers: 1 },
  load: { clients: 16, seconds: 5, accepted: 500, refused: 10, failed: 0, cpuCores: 0.4 },
  succeeded: 500,
  notFinished: 0,
  exportsPerSecond,
  totalMs: { p50: p99 / 4, p99 },
  dispatchMs: { p50: 5, p99: 20 },
  claimMs: { p50: 3, p99: 10 },
  workMs: { p50: 8, p99: 30 },
  jobsWithRecoveryEvent: lost,
  cpuMsPerExport: { api: 4, worker: 6, mariadb: 3 },
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
  it('When percentiles are taken by nearest rank, Then p50 and p99 of 1..100 are 50 and 99 [test:bench-percentiles]', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(Number.isNaN(percentile([], 50))).toBe(true);
  });

  it('When runs are summarised, Then each configuration gets the medians of its runs [test:bench-medians]', () => {
    const [one, two] = pipelineMedians(results);
    expect(one).toMatchObject({ exportsPerSecond: 110, totalP99: 900, runs: 3 });
    expect(two).toMatchObject({ exportsPerSecond: 210, totalP99: 700, runs: 1 });
  });

  it('When the page is rendered, Then it has the tables, the charts it links and a verdict per target [test:bench-page-targets]', () => {
    const page = renderBenchmarks(results);
    expect(page.markdown).toContain('| 1 worker, 1 publisher | 110 |');
    expect(page.markdown).toMatch(/≥ 200 exports\/s .*\| 110 with one worker; best 210 \(2 workers, 1 publisher\) \| met \|/);
    expect(page.markdown).toMatch(/p99 submit → succeeded < 1 s \| 700 ms .*\| met \|/);
    for (const linked of page.markdown.matchAll(/\(benchmarks\/([a-z-]+\.svg)\)/g)) expect(Object.keys(page.charts)).toContain(linked[1]);
    const slow = renderBenchmarks({ ...results, pipeline: [run(1, 50, 3000, 2)] });
    expect(slow.markdown).toMatch(/≥ 200 exports\/s .*\*\*not met\*\*/);
    expect(slow.markdown).toMatch(/no wake-up lost .*\| 2 job\(s\).*\*\*not met\*\*/);
    expect(page.markdown).toMatch(/\| 1 worker, 1 publisher \| 0\.0 \| 4\.0 \| 0\.0 \| 6\.0 \| 0\.0 \| 3\.0 \| 0\.0 \| 13\.0 \|/);
  });

  it('When a chart is drawn, Then it is one SVG element with a bar and a value per series, and its text escaped [test:bench-chart-svg]', () => {
    const svg = renderBarChart({ title: 'a < b & c', unit: 'u', categories: ['x', 'y'], series: [{ name: 's', values: [1, Number.NaN] }] });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain(escapeXml('a < b & c'));
    expect(svg).not.toContain('a < b & c');
    expect(svg.match(/<rect /g)?.length).toBe(1 + 2 + 1); // background, two bars, one legend swatch
  });

  it('When the page is written again, Then the notes a person wrote between the markers are kept [test:bench-notes-kept]', () => {
    const previous = 'old figures\n<!-- notes:begin -->\nThe gate is CPU-bound.\n<!-- notes:end -->\n';
    expect(keepNotes('# Benchmarks\nnew figures', previous)).toContain('<!-- notes:begin -->\nThe gate is CPU-bound.\n<!-- notes:end -->');
    expect(keepNotes('# Benchmarks', undefined)).toContain('<!-- notes:begin -->\n<!-- notes:end -->');
  });
});
