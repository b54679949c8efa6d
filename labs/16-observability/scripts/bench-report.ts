// What `pnpm bench` writes: docs/benchmarks.md and its charts (docs/benchmarks/*.svg), from
// one run's results. Pure: the figures come in, text comes out (test/bench-report.test.ts).
// The charts are plain SVG, grouped bars with their values written on them, readable in any
// browser or on GitHub without a chart library.
import { median, type GateBenchResult } from '@tasks-lab/13-admission/bench';
import { escapeXml } from '../src/matrix/timeline.ts';
import type { RawBullmqRun } from './bench-bullmq.ts';
import type { Configuration, PipelineRun } from './bench-pipeline.ts';
import { TRANSACTIONS, type TransactionRates } from './bench-transactions.ts';

// ---- charts ---------------------------------------------------------------------------------

export interface BarChart {
  title: string;
  unit: string;
  categories: readonly string[];
  series: ReadonlyArray<{ name: string; values: readonly number[] }>;
}

const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2'];

const label = (value: number) => (!Number.isFinite(value) ? '–' : value >= 100 ? String(Math.round(value)) : value.toFixed(1));

/** A grouped bar chart: one group per category, one bar per series, the value on each bar. */
export function renderBarChart(chart: BarChart): string {
  const width = 760;
  const height = 320;
  const left = 60;
  const top = 48;
  const bottom = 60;
  const plotHeight = height - top - bottom;
  const plotWidth = width - left - 20;
  const finite = chart.series.flatMap((s) => s.values).filter(Number.isFinite);
  const max = Math.max(1, ...finite) * 1.15;
  const groupWidth = plotWidth / Math.max(1, chart.categories.length);
  const barWidth = (groupWidth * 0.8) / Math.max(1, chart.series.length);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${left}" y="20" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`,
    `<text x="${left}" y="38" fill="#555">${escapeXml(chart.unit)}</text>`,
    `<line x1="${left}" y1="${top + plotHeight}" x2="${left + plotWidth}" y2="${top + plotHeight}" stroke="#333"/>`,
  ];
  chart.categories.forEach((category, c) => {
    const groupX = left + c * groupWidth + groupWidth * 0.1;
    chart.series.forEach((series, s) => {
      const value = series.values[c] ?? Number.NaN;
      const barHeight = Number.isFinite(value) ? (value / max) * plotHeight : 0;
      const x = groupX + s * barWidth;
      const y = top + plotHeight - barHeight;
      parts.push(`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(barWidth - 2).toFixed(1)}" height="${barHeight.toFixed(1)}" fill="${COLORS[s % COLORS.length]}"/>`);
      parts.push(`<text x="${(x + barWidth / 2).toFixed(1)}" y="${(y - 4).toFixed(1)}" text-anchor="middle">${label(value)}</text>`);
    });
    parts.push(`<text x="${(groupX + groupWidth * 0.4).toFixed(1)}" y="${top + plotHeight + 18}" text-anchor="middle">${escapeXml(category)}</text>`);
  });
  chart.series.forEach((series, s) => {
    const x = left + s * 170;
    parts.push(`<rect x="${x}" y="${height - 22}" width="12" height="12" fill="${COLORS[s % COLORS.length]}"/>`);
    parts.push(`<text x="${x + 16}" y="${height - 12}">${escapeXml(series.name)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

// ---- the document -------------------------------------------------------------------------

export interface BenchResults {
  startedAt: string;
  command: string;
  machine: { cpus: number; cpuModel: string; node: string; server: string; flushLogAtTrxCommit: string };
  raw: RawBullmqRun[];
  pipeline: PipelineRun[];
  configurations: readonly Configuration[];
  gate?: GateBenchResult;
  transactions?: TransactionRates;
}

export interface PipelineMedian {
  configuration: Configuration;
  exportsPerSecond: number;
  totalP50: number;
  totalP99: number;
  dispatchP50: number;
  claimP50: number;
  workP50: number;
  lostWakeUps: number;
  notFinished: number;
  loadCpu: number;
  /** CPU ms per export by kind of process (medians). */
  cpuMs: Record<string, number>;
  runs: number;
}

/** The kinds of process the CPU table shows, in the order of an export's path. */
export const CPU_ROLES = ['load', 'api', 'publisher', 'worker', 'scanner', 'mariadb', 'redis'] as const;

export function pipelineMedians(results: Pick<BenchResults, 'pipeline' | 'configurations'>): PipelineMedian[] {
  return results.configurations.map((configuration) => {
    const mine = results.pipeline.filter((r) => r.configuration.workers === configuration.workers && r.configuration.publishers === configuration.publishers);
    const m = (pick: (r: PipelineRun) => number) => median(mine.map(pick));
    return {
      configuration,
      exportsPerSecond: m((r) => r.exportsPerSecond),
      totalP50: m((r) => r.totalMs.p50),
      totalP99: m((r) => r.totalMs.p99),
      dispatchP50: m((r) => r.dispatchMs.p50),
      claimP50: m((r) => r.claimMs.p50),
      workP50: m((r) => r.workMs.p50),
      lostWakeUps: mine.reduce((n, r) => n + r.jobsWithRecoveryEvent, 0),
      notFinished: mine.reduce((n, r) => n + r.notFinished, 0),
      loadCpu: m((r) => r.load.cpuCores),
      cpuMs: Object.fromEntries(CPU_ROLES.map((role) => [role, m((r) => r.cpuMsPerExport?.[role] ?? 0)])),
      runs: mine.length,
    };
  });
}

const whole = (value: number) => (Number.isFinite(value) ? String(Math.round(value)) : '–');
const configName = (c: Configuration) => `${c.workers} worker${c.workers > 1 ? 's' : ''}, ${c.publishers} publisher${c.publishers > 1 ? 's' : ''}`;

export interface RenderedBenchmarks {
  markdown: string;
  /** File name (under docs/benchmarks/) -> SVG. */
  charts: Record<string, string>;
}

export function renderBenchmarks(results: BenchResults): RenderedBenchmarks {
  const rows = pipelineMedians(results);
  const raw = [1, 4, 16].map((concurrency) => ({ concurrency, rate: median(results.raw.filter((r) => r.concurrency === concurrency).map((r) => r.jobsPerSecond)) }));
  const rawAt4 = raw.find((r) => r.concurrency === 4)?.rate ?? Number.NaN;
  const best = rows.reduce<PipelineMedian | undefined>((a, b) => (!a || b.exportsPerSecond > a.exportsPerSecond ? b : a), undefined);
  const charts: Record<string, string> = {
    'pipeline-throughput.svg': renderBarChart({
      title: 'Durable pipeline: exports per second, end to end',
      unit: 'exports/s (median of the runs); all-fast mix, worker concurrency 2, admission limit 100',
      categories: rows.map((r) => configName(r.configuration)),
      series: [{ name: 'exports/s', values: rows.map((r) => r.exportsPerSecond) }],
    }),
    'pipeline-latency.svg': renderBarChart({
      title: 'Durable pipeline: submit to succeeded',
      unit: 'milliseconds (median of the runs of each percentile)',
      categories: rows.map((r) => configName(r.configuration)),
      series: [
        { name: 'p50', values: rows.map((r) => r.totalP50) },
        { name: 'p99', values: rows.map((r) => r.totalP99) },
      ],
    }),
    'raw-bullmq.svg': renderBarChart({
      title: 'Raw BullMQ: no-op jobs added and processed',
      unit: 'jobs/s (median of the runs), one worker in one process',
      categories: raw.map((r) => `concurrency ${r.concurrency}`),
      series: [{ name: 'jobs/s', values: raw.map((r) => r.rate) }],
    }),
  };
  const gate = results.gate;
  if (gate) {
    charts['admission-gate.svg'] = renderBarChart({
      title: 'Admission: one hot row against the two gates',
      unit: 'transactions or admissions per second (median of the runs)',
      categories: gate.medians.map((m) => `${m.concurrency} submitters`),
      series: [
        { name: 'hot row', values: gate.medians.map((m) => m.perSecond['hot-row']) },
        { name: "course's gate", values: gate.medians.map((m) => m.perSecond.course) },
        { name: 'counter gate', values: gate.medians.map((m) => m.perSecond.counter) },
      ],
    });
  }

  const lines: string[] = [
    '# Benchmarks',
    '',
    `Written by \`${results.command}\` on ${results.startedAt.slice(0, 16).replace('T', ' ')} UTC. Run it again to replace every figure on`,
    'this page; each run also keeps its raw figures as JSON under `labs/16-observability/bench-results/` (git-ignored).',
    '',
    `**The machine:** ${results.machine.cpus} × ${results.machine.cpuModel}, Node ${results.machine.node}, ${results.machine.server}` +
      ` (\`innodb_flush_log_at_trx_commit = ${results.machine.flushLogAtTrxCommit}\`: every COMMIT waits for the log's flush), Redis 7 on the same cores.`,
    'The benchmark, its load generator, the API, the publishers, the workers, MySQL and Redis all share those cores: read',
    'the ratios more than the absolute figures, which move with the machine.',
    '',
    '## The durable pipeline, end to end',
    '',
    'A load generator process (16 clients, closed loop) POSTs `{"product_ids":[1,2,3]}` to lab 16\'s API; the admission gate,',
    'the outbox, the publisher(s), BullMQ `exports.fast` and the worker process(es) (concurrency 2 each) take it to `succeeded`',
    '(`pnpm bench:pipeline`, [`scripts/bench-pipeline.ts`](../labs/16-observability/scripts/bench-pipeline.ts)). The course\'s settings',
    '(admission limit 100, lease 30 s, scanner every 5 s). Latencies are from the database\'s own timestamps: `dispatch` submit →',
    'event confirmed sent, `claim` sent → claimed, `work` claimed → succeeded.',
    '',
    '| configuration | exports/s | p50 total (ms) | p99 total (ms) | p50 dispatch / claim / work (ms) | lost wake-ups | not finished | load generator CPU | runs |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${configName(r.configuration)} | ${whole(r.exportsPerSecond)} | ${whole(r.totalP50)} | ${whole(r.totalP99)} | ${whole(r.dispatchP50)} / ${whole(r.claimP50)} / ${whole(r.workP50)} | ${r.lostWakeUps} | ${r.notFinished} | ${whole(r.loadCpu * 100)} % of a core | ${r.runs} |`,
    ),
    '',
    '![exports per second](benchmarks/pipeline-throughput.svg)',
    '',
    '![submit to succeeded](benchmarks/pipeline-latency.svg)',
    '',
    '"Lost wake-ups" counts jobs that needed an outbox event the recovery scanner wrote: without faults it must be 0.',
    '',
    'Where the two cores went: CPU milliseconds per succeeded export, by kind of process (from `/proc/<pid>/stat`, from the',
    "load's start to the drain's end; the median over the runs). Their sum over the cores' 2000 ms per second is a ceiling on",
    'exports per second that no setting of the pipeline can pass.',
    '',
    `| configuration | ${CPU_ROLES.join(' | ')} | total |`,
    `|---|${CPU_ROLES.map(() => '---:').join('|')}|---:|`,
    ...rows.map((r) => `| ${configName(r.configuration)} | ${CPU_ROLES.map((role) => (r.cpuMs[role] ?? 0).toFixed(1)).join(' | ')} | ${CPU_ROLES.reduce((n, role) => n + (r.cpuMs[role] ?? 0), 0).toFixed(1)} |`),
    '',
    '## Raw BullMQ on the same Redis',
    '',
    '| worker concurrency | jobs/s |',
    '|---:|---:|',
    ...raw.map((r) => `| ${r.concurrency} | ${whole(r.rate)} |`),
    '',
    '![raw BullMQ](benchmarks/raw-bullmq.svg)',
    '',
    best
      ? `The best pipeline configuration (${configName(best.configuration)}) runs ${whole(best.exportsPerSecond)} exports/s: ${Number.isFinite(rawAt4) ? (best.exportsPerSecond / rawAt4).toFixed(3) : '–'} of raw BullMQ's rate at concurrency 4. Each durable export is five short transactions, a file and two queue hops (publisher and worker), where a raw job is one queue hop and no transaction.`
      : '',
    '',
  ];
  if (gate) {
    lines.push(
      '## The admission gate',
      '',
      `Lab 13's \`pnpm bench:gate\` in the same run (median of ${gate.settings.runs} runs of ${gate.settings.seconds} s):`,
      '',
      '| submitters | hot row (tx/s) | course\'s gate (/s, ratio) | counter gate (/s, ratio) |',
      '|---:|---:|---:|---:|',
      ...gate.medians.map((m) => {
        const hot = m.perSecond['hot-row'];
        const ratio = (v: number) => (hot > 0 ? `${(v / hot).toFixed(2)}×` : '–');
        return `| ${m.concurrency} | ${whole(hot)} | ${whole(m.perSecond.course)} (${ratio(m.perSecond.course)}) | ${whole(m.perSecond.counter)} (${ratio(m.perSecond.counter)}) |`;
      }),
      '',
      '![admission gate](benchmarks/admission-gate.svg)',
      '',
    );
  }
  const tx = results.transactions;
  if (tx) {
    lines.push(
      "## The database's part: one export's transactions, each alone",
      '',
      `Each of the five transactions of one export run ${tx.jobs} times at ${tx.concurrency} clients on a scratch database`,
      '([`scripts/bench-transactions.ts`](../labs/16-observability/scripts/bench-transactions.ts)); the claim takes up to 10 events',
      "per transaction, as the publisher does, and its rate is in events. The bound is 1 / Σ(1/rᵢ): the exports per second the",
      'database allows if it did nothing else.',
      '',
      `| ${TRANSACTIONS.join(' | ')} | bound |`,
      `|${TRANSACTIONS.map(() => '---:').join('|')}|---:|`,
      `| ${TRANSACTIONS.map((name) => whole(tx.perSecond[name])).join(' | ')} | ${whole(tx.boundPerSecond)} |`,
      '',
    );
  }
  lines.push(...renderTargets(rows, gate, tx));
  return { markdown: `${lines.join('\n')}\n`, charts };
}

/** The issue's targets, each with what was measured and whether it holds. */
function renderTargets(rows: readonly PipelineMedian[], gate: GateBenchResult | undefined, tx: TransactionRates | undefined): string[] {
  const target = rows.find((r) => r.configuration.workers === 1 && r.configuration.publishers === 1);
  const best = rows.reduce<PipelineMedian | undefined>((a, b) => (!a || b.exportsPerSecond > a.exportsPerSecond ? b : a), undefined);
  const lost = rows.reduce((n, r) => n + r.lostWakeUps, 0);
  const gateRatio = gate
    ? Math.max(...gate.medians.filter((m) => m.concurrency >= 4).map((m) => m.perSecond.counter / m.perSecond['hot-row']))
    : Number.NaN;
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  return [
    '## Targets',
    '',
    '| target | measured | |',
    '|---|---|---|',
    `| ≥ 200 exports/s end to end (all fast, limit 100, worker concurrency 2) | ${whole(target?.exportsPerSecond ?? Number.NaN)} with one worker; best ${whole(best?.exportsPerSecond ?? Number.NaN)} (${best ? configName(best.configuration) : '–'}) | ${verdict((best?.exportsPerSecond ?? 0) >= 200)} |`,
    `| p99 submit → succeeded < 1 s | ${whole(best?.totalP99 ?? Number.NaN)} ms at the best configuration | ${verdict((best?.totalP99 ?? Infinity) < 1000)} |`,
    `| no wake-up lost (no job needed a scanner's event) | ${lost} job(s) in every run together | ${verdict(lost === 0)} |`,
    `| admission gate ≥ 80 % of the hot row | ${Number.isFinite(gateRatio) ? `${Math.round(gateRatio * 100)} % (counter gate, best of 4+ submitters)` : 'not measured in this run'} | ${Number.isFinite(gateRatio) ? verdict(gateRatio >= 0.8) : '–'} |`,
    tx && best
      ? `| ≥ 60 % of the database bound (1 / Σ 1/rᵢ over one export's transactions) | ${whole(best.exportsPerSecond)} of ${whole(tx.boundPerSecond)} exports/s: ${Math.round((best.exportsPerSecond / tx.boundPerSecond) * 100)} % | ${verdict(best.exportsPerSecond >= 0.6 * tx.boundPerSecond)} |`
      : "| ≥ 60 % of the database bound (1 / Σ 1/rᵢ over one export's transactions) | not measured in this run | – |",
    '',
  ];
}
