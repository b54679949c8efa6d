// `pnpm bench:refusal`: what it costs to say "full". Lesson 13 can refuse a POST in three ways,
// and this measures them side by side on a scratch database whose service is full (100 queued
// jobs, the gate's counter at its limit of 100; nothing is ever admitted, so nothing changes):
//
//   count     the course's gate, every refusal under its lock: lock the gate, COUNT the queued
//             and running jobs, refuse, ROLL BACK (admitExport, ADMISSION_GATE=count,
//             ADMISSION_EARLY_REFUSAL=off).
//   counter   the lab's gate, every refusal under its lock: read the snapshot, insert the job and
//             its event, lock the gate, read its counter, refuse, ROLL BACK (ADMISSION_GATE=counter,
//             ADMISSION_EARLY_REFUSAL=off). It pays for the inserts first: that is what makes its
//             admissions fast (the lock is held for two statements), and its refusals slow.
//   early     the early refusal (the default): refuseEarlyWhenFull, one SELECT of the counter
//             without a lock and no transaction.
//
// Each at 1 and 16 clients in a closed loop (each client starts its next refusal when its last
// one answered), on a pool with a connection per client; each figure is the median of 3 timed
// runs of 1.5 s, each after an untimed warm-up of 0.3 s (and one untimed pass of everything
// before the first); the forms take turns run by run, so drift hits them alike. It reports
// refusals per second, the median and 99th-percentile time of one refusal (nearest rank), and
// each form's rate over the course's. What bounds the figures: the two refusals under the lock
// are bounded by the gate row's lock (one refusal holds it at a time, as an admission would),
// the early one by one SELECT's round trip and the two cores that this process and the server
// share. HTTP is not in it: the early refusal also skips reading the body, which the other two
// parse before they start.
//
//   pnpm bench:refusal                                 the defaults above (about 15 s)
//   pnpm bench:refusal -- --runs 5 --concurrency 1,4,32
// It prints a line per measurement and the table, and writes every run to
// bench-results/refusal-<timestamp>.json (git-ignored).
import { mkdir, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Pool } from 'mysql2/promise';
import { ensureInfra } from '@tasks-lab/infra';
import { median, percentile, rate, runMain, withResources } from '@tasks-lab/lab-kit';
import {
  admitExport,
  CapacityExceededError,
  COURSE_RULES,
  freshDatabase,
  refuseEarlyWhenFull,
  type AdmissionRules,
} from '@tasks-lab/13-admission';
import { parseBenchArgs, type BenchSettings } from './bench-stats.ts';

const FORMS = ['count', 'counter', 'early'] as const;
type RefusalForm = (typeof FORMS)[number];

/** The course's limit; the service is filled to it before anything is timed. */
const LIMIT = 100;
/** Two products: a small export, as in `pnpm bench:gate`. */
const PRODUCT_IDS = [1, 2];
const DEFAULT_CONCURRENCY = [1, 16];

export interface RefusalRun {
  form: RefusalForm;
  concurrency: number;
  run: number;
  refusals: number;
  ms: number;
  perSecond: number;
  medianMs: number;
  p99Ms: number;
}

export interface RefusalRow {
  concurrency: number;
  form: RefusalForm;
  perSecond: number;
  medianMs: number;
  p99Ms: number;
  /** This form's rate over the course's (count) at the same concurrency. */
  vsCourse: number;
}

const RULES: AdmissionRules = { ...COURSE_RULES, admissionLimit: LIMIT };

/** One refusal in the given form; anything but a capacity-exceeded refusal is an error of the benchmark. */
function refusalOf(form: RefusalForm, pool: Pool): () => Promise<void> {
  const refuse =
    form === 'early'
      ? () => refuseEarlyWhenFull(pool, { ...RULES, earlyRefusal: 'on' })
      : () => admitExport(pool, PRODUCT_IDS, { rules: { ...RULES, admissionGate: form, earlyRefusal: 'off' } });
  return async () => {
    try {
      await refuse();
    } catch (err) {
      if (err instanceof CapacityExceededError) return;
      throw err;
    }
    throw new Error(`the ${form} form did not refuse a full service`);
  };
}

/** Admits jobs until the service is full (LIMIT queued jobs, the counter at LIMIT). */
async function fill(pool: Pool): Promise<void> {
  for (let i = 0; i < LIMIT; i += 1) await admitExport(pool, PRODUCT_IDS, { rules: RULES });
}

/** `concurrency` clients refusing in a closed loop for `seconds`; every refusal's time is kept. */
async function closedLoop(
  refusal: () => Promise<void>,
  concurrency: number,
  seconds: number,
  signal: AbortSignal,
): Promise<{ times: number[]; ms: number }> {
  const times: number[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  const client = async () => {
    while (performance.now() < end) {
      signal.throwIfAborted();
      const began = performance.now();
      await refusal();
      times.push(performance.now() - began);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return { times, ms: performance.now() - start };
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

async function measure(
  pool: Pool,
  form: RefusalForm,
  concurrency: number,
  run: number,
  settings: BenchSettings,
  signal: AbortSignal,
): Promise<RefusalRun> {
  const refusal = refusalOf(form, pool);
  await closedLoop(refusal, concurrency, settings.warmupSeconds, signal);
  const { times, ms } = await closedLoop(refusal, concurrency, settings.seconds, signal);
  const sorted = [...times].sort((a, b) => a - b);
  return {
    form,
    concurrency,
    run,
    refusals: times.length,
    ms: round3(ms),
    perSecond: Math.round(rate(times.length, ms) * 10) / 10,
    medianMs: round3(median(sorted)),
    p99Ms: round3(percentile(sorted, 0.99) ?? Number.NaN),
  };
}

/** The medians of the runs, per concurrency and form, and each form's rate over the course's. */
export function summarizeRefusals(runs: readonly RefusalRun[], concurrency: readonly number[]): RefusalRow[] {
  return concurrency.flatMap((clients) => {
    const of = (form: RefusalForm) => {
      const mine = runs.filter((r) => r.form === form && r.concurrency === clients);
      return {
        perSecond: median(mine.map((r) => r.perSecond)),
        medianMs: median(mine.map((r) => r.medianMs)),
        p99Ms: median(mine.map((r) => r.p99Ms)),
      };
    };
    const course = of('count').perSecond;
    return FORMS.map((form) => {
      const row = of(form);
      return { concurrency: clients, form, ...row, vsCourse: Math.round((row.perSecond / course) * 10) / 10 };
    });
  });
}

const FORM_WORDS: Record<RefusalForm, string> = {
  count: "course's gate, under the lock",
  counter: "lab's gate, under the lock",
  early: 'early refusal, no lock',
};

/** The table the lesson quotes: one row per concurrency and form. */
export function formatRefusalTable(rows: readonly RefusalRow[]): string[] {
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  return [
    '| clients | refusal | refusals/s | median | p99 | vs the course |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.concurrency} | ${FORM_WORDS[r.form]} | ${Math.round(r.perSecond)} | ${ms(r.medianMs)} | ${ms(r.p99Ms)} | ${r.vsCourse}× |`,
    ),
  ];
}

async function main(): Promise<void> {
  const parsed = parseBenchArgs(process.argv.slice(2));
  const explicit = process.argv.some((arg) => arg === '--concurrency');
  const settings: BenchSettings = { ...parsed, concurrency: explicit ? parsed.concurrency : DEFAULT_CONCURRENCY };
  await ensureInfra({ services: ['mysql'], log: (line) => console.log(`[infra] ${line}`) });
  const connectionLimit = Math.max(...settings.concurrency);
  const result = await withResources(undefined, async (res) => {
    const db = res.add(await freshDatabase('benchrefusal', { connectionLimit }), (d) => d.drop());
    await fill(db.pool);
    console.log(
      `scratch database ${db.name}: ${LIMIT} queued jobs, the gate full at its limit of ${LIMIT}; nothing is ever admitted`,
    );
    const quick = { ...settings, seconds: settings.warmupSeconds };
    for (const concurrency of settings.concurrency)
      for (const form of FORMS) await measure(db.pool, form, concurrency, 0, quick, res.signal);
    const runs: RefusalRun[] = [];
    for (const concurrency of settings.concurrency)
      for (let run = 1; run <= settings.runs; run += 1)
        for (const form of FORMS) {
          const record = await measure(db.pool, form, concurrency, run, settings, res.signal);
          runs.push(record);
          console.log(
            `${form} refusal, ${concurrency} client(s), run ${run}: ${Math.round(record.perSecond)}/s, median ${record.medianMs} ms, p99 ${record.p99Ms} ms`,
          );
        }
    return { runs, rows: summarizeRefusals(runs, settings.concurrency) };
  });
  console.log('');
  for (const line of formatRefusalTable(result.rows)) console.log(line);
  const dir = fileURLToPath(new URL('../bench-results/', import.meta.url));
  await mkdir(dir, { recursive: true });
  const file = `${dir}refusal-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  await writeFile(file, `${JSON.stringify({ kind: 'tasks-lab13-refusal-bench', settings, ...result }, null, 2)}\n`);
  console.log(`\nwritten: ${relative(process.cwd(), file)}`);
}

runMain(import.meta.url, main);
