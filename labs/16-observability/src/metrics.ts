// GET /metrics: the monitoring queries and the growth of what the service stores, in
// Prometheus's text format (prom-client 15). The course: "metrics labels stay low
// cardinality; a specific job_id goes in the logs". Every label here comes from a small,
// fixed set (a status, a dead-letter reason, a table, a BullMQ prefix and queue, a source);
// a job id as a label would make one time series per job, for ever, and is never used.
//
//   tasks_lab_jobs{status}                         query 1 (every status, 0 when none)
//   tasks_lab_outbox_unpublished                   query 2
//   tasks_lab_outbox_oldest_unpublished_seconds    query 2; NO sample when nothing is unsent (null, never 0)
//   tasks_lab_expired_leases                       query 3
//   tasks_lab_dead_letters{reason}                 query 4
//   tasks_lab_queued_without_pending               query 5
//   tasks_lab_queued_without_pending_oldest_seconds  query 5; no sample when there is none
//   tasks_lab_latency_seconds{stage,queue,quantile}  p50/p95/p99 of submit -> first claim (stage
//                                                  "start") and submit -> terminal ("finish") over
//                                                  the window (src/latency.ts); no sample without jobs
//   tasks_lab_latency_jobs{stage,queue}            the jobs those percentiles cover
//   tasks_lab_latency_waiting{stage,queue}         jobs that have not reached the stage yet
//   tasks_lab_latency_oldest_waiting_seconds{stage,queue}  the oldest of them; no sample when none
//   tasks_lab_latency_target_seconds{stage}        the stage's target
//   tasks_lab_latency_over_target{stage,queue}     1 when the p95 or the oldest waiting job is past it
//   tasks_lab_table_rows{table}                    growth: information_schema's ESTIMATE (see below)
//   tasks_lab_table_bytes{table}                   growth: DATA_LENGTH + INDEX_LENGTH
//   tasks_lab_redis_keys{prefix,queue}             growth: BullMQ keys under each prefix, per queue
//   tasks_lab_redis_keys_scan_complete{prefix}     1 when the SCAN finished, 0 when it stopped at its bound
//   tasks_lab_up{source}                           1 when the source answered this scrape, 0 when not
//
// The gauges are filled at scrape time (each gauge's collect()), from ONE read per source
// shared by every gauge of that scrape: prom-client calls every collect() in the same tick,
// so the first one starts the read and the others await the same promise.
//
// The latencies are gauges over a window, not prom-client histograms, because this process
// never sees a claim or a finish: the workers do, in their own processes. Histograms would have
// to be observed in every worker, each exposing its own /metrics, and summed across processes
// (and lost with a killed worker). The database already holds both instants of every job, so
// the API reads them when it is scraped; the cost is a bounded read per scrape (src/latency.ts).
//
// A source that is down does not turn the scrape into a 500: Prometheus would then lose
// every metric, the healthy ones included, exactly when they matter. Instead that source's
// gauges have no sample and tasks_lab_up{source} is 0 (alert on it). A gauge reading 0
// because its source was unreachable would lie.
//
// Table rows are information_schema.TABLES.TABLE_ROWS: an ESTIMATE for InnoDB (off by tens of
// percent, and on MySQL 8 cached for information_schema_stats_expiry, a day by default). An
// exact COUNT(*) reads a whole index: on the big tables this metric exists to watch, the
// scrape would get slower exactly as the table grows. The estimate shows the trend, which is
// the question ("is housekeeping keeping up?"); the exact numbers that matter (jobs per
// status, unsent events) come from the indexed monitoring queries above.
//
// Redis keys are counted with SCAN MATCH '<prefix>:*' COUNT 500, a bounded number of calls:
// KEYS would block Redis for the whole keyspace (every worker and the publisher wait), SCAN
// does a little work per call. Each registry is the caller's own (never prom-client's global
// default): tests and checks create many, and two apps in one process must not collide.
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { Gauge, Registry } from 'prom-client';
import { JOB_STATES } from '@tasks-lab/01-state-machine';
import { errorMessage } from '@tasks-lab/lab-kit';
import { readLatency, type LatencyReport, type QueueLatency } from './latency.ts';
import { readMonitoring, type MonitoringSnapshot } from './monitoring.ts';
import { MONITORING_DEFAULTS, type MonitoringSettings } from './monitoring-targets.ts';

/**
 * The size of each table of the current database: the estimated rows, and the bytes of its
 * data and indexes. Rows: one per table. Parameters: [database, or null for DATABASE()].
 */
export const TABLE_GROWTH = `
  SELECT TABLE_NAME AS table_name, TABLE_ROWS AS table_rows, DATA_LENGTH + INDEX_LENGTH AS table_bytes
  FROM information_schema.TABLES
  WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_TYPE = 'BASE TABLE'
  ORDER BY TABLE_NAME`;

/** Keys per SCAN call (a hint to Redis, not a promise). */
export const SCAN_COUNT = 500;
/** SCAN calls per prefix per scrape: 1000 x 500 = about half a million keys, then it stops (scan_complete 0). */
export const MAX_SCAN_CALLS = 1000;

export interface TableGrowth {
  table: string;
  /** information_schema's estimate: a trend, not an exact count. */
  rows: number;
  bytes: number;
}

export interface RedisKeyCount {
  prefix: string;
  /** Keys per queue (the name after the prefix): BullMQ keeps all of a queue's keys under `<prefix>:<queue>:`. */
  byQueue: Record<string, number>;
  /** false: the bounded SCAN stopped before the end, the counts are a lower bound. */
  complete: boolean;
}

/** Everything one scrape read: undefined where the source did not answer (its error is kept). */
export interface ScrapeReadings {
  monitoring?: MonitoringSnapshot;
  latency?: LatencyReport;
  tables?: TableGrowth[];
  redisKeys?: RedisKeyCount[];
  /** Why a source gave no reading, by source. */
  errors: Partial<Record<MetricSource, string>>;
}

export type MetricSource = 'mysql' | 'redis';

export interface MetricsOptions {
  pool: Pool;
  /** The client that SCANs; none: no Redis gauges (and tasks_lab_up{source="redis"} is not reported). */
  redis?: Redis;
  /** The BullMQ prefixes whose keys are counted. @defaultValue [] */
  prefixes?: readonly string[];
  /** The database whose tables are measured. @defaultValue the pool's current database (DATABASE()) */
  database?: string;
  /** How many SCAN calls per prefix at most. @defaultValue MAX_SCAN_CALLS */
  maxScanCalls?: number;
  /** The latency targets, window and row limit. @defaultValue MONITORING_DEFAULTS (the course-scale values) */
  settings?: MonitoringSettings;
}

export interface Metrics {
  registry: Registry;
  /** The exposition text of one scrape (it never throws because a source is down). */
  metricsText(): Promise<string>;
  /** prom-client's Content-Type for that text (text/plain; version=0.0.4). */
  contentType: string;
  /** One scrape's readings, as the gauges see them (`pnpm housekeeping` prints them). */
  read(): Promise<ScrapeReadings>;
}

// ---- the readings ------------------------------------------------------------------

export async function readTableGrowth(pool: Pool, database?: string): Promise<TableGrowth[]> {
  const [rows] = await pool.query<RowDataPacket[]>(TABLE_GROWTH, [database ?? null]);
  return rows.map((row) => ({
    table: String(row.table_name),
    rows: Number(row.table_rows ?? 0),
    bytes: Number(row.table_bytes ?? 0),
  }));
}

/** `*`, `?`, `[`, `]` and `\` are glob characters in SCAN's MATCH: a prefix is matched literally. */
const globEscaped = (text: string): string => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/** Counts the keys under `<prefix>:`, per queue, with at most `maxCalls` SCAN calls. */
export async function countRedisKeys(
  redis: Redis,
  prefix: string,
  maxCalls: number = MAX_SCAN_CALLS,
): Promise<RedisKeyCount> {
  const byQueue: Record<string, number> = {};
  const start = prefix.length + 1;
  let cursor = '0';
  let calls = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${globEscaped(prefix)}:*`, 'COUNT', SCAN_COUNT);
    for (const key of keys) {
      const end = key.indexOf(':', start);
      const queue = end === -1 ? key.slice(start) : key.slice(start, end);
      byQueue[queue] = (byQueue[queue] ?? 0) + 1;
    }
    cursor = next;
    calls += 1;
  } while (cursor !== '0' && calls < maxCalls);
  return { prefix, byQueue, complete: cursor === '0' };
}

/**
 * Why a source did not answer, without what a driver's message may carry (mysql2's "Access
 * denied for user ..." names the user): the error code when there is one, else the message.
 */
export function sourceFailure(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : errorMessage(err).slice(0, 120);
}

/**
 * Waits (at most `timeoutMs`) until `redis` is connected. The server's client fails fast (no
 * offline queue: a nudge must never wait), so a SCAN sent before its first connection is
 * refused; a process that scans right after start-up waits for it first.
 */
export async function redisReady(redis: Redis, timeoutMs = 5000): Promise<Redis> {
  if (redis.status !== 'ready') await once(redis, 'ready', { signal: AbortSignal.timeout(timeoutMs) });
  return redis;
}

/** Reads every source once; a source that fails leaves its readings undefined and says why. */
export async function readScrape(options: MetricsOptions): Promise<ScrapeReadings> {
  const errors: ScrapeReadings['errors'] = {};
  const settings = options.settings ?? MONITORING_DEFAULTS;
  const mysql = Promise.all([
    readMonitoring(options.pool),
    readTableGrowth(options.pool, options.database),
    readLatency(options.pool, settings),
  ]).catch((err: unknown) => {
    errors.mysql = sourceFailure(err);
    return undefined;
  });
  const { redis } = options;
  const keys = redis
    ? Promise.all((options.prefixes ?? []).map((prefix) => countRedisKeys(redis, prefix, options.maxScanCalls))).catch(
        (err: unknown) => {
          errors.redis = sourceFailure(err);
          return undefined;
        },
      )
    : Promise.resolve(undefined);
  const [database, redisKeys] = await Promise.all([mysql, keys]);
  return { monitoring: database?.[0], tables: database?.[1], latency: database?.[2], redisKeys, errors };
}

// ---- the gauges --------------------------------------------------------------------

/** One read per scrape, shared by every gauge's collect() (they are all called in the same tick). */
function sharedReading(read: () => Promise<ScrapeReadings>): () => Promise<ScrapeReadings> {
  let inFlight: Promise<ScrapeReadings> | undefined;
  return () => {
    if (inFlight) return inFlight;
    const reading = read();
    inFlight = reading;
    // Forgotten once settled: the next scrape reads afresh.
    const forget = () => {
      if (inFlight === reading) inFlight = undefined;
    };
    reading.then(forget, forget);
    return reading;
  };
}

/** Sets a gauge with no labels, or removes its sample: a null age is "nothing to measure", not 0. */
function setOrOmit(gauge: Gauge, value: number | null | undefined): void {
  if (value === null || value === undefined) gauge.remove();
  else gauge.set(value);
}

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  const scrape = sharedReading(() => readScrape(options));
  const registers = [registry];

  /** A gauge filled from the scrape's readings; `fill` sees the readings after the gauge was emptied. */
  const gauge = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    fill: (g: Gauge<L>, r: ScrapeReadings) => void,
  ): Gauge<L> =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        const readings = await scrape();
        // Empty first: a label that had a sample last time (a reason, a queue) must not linger.
        this.reset();
        if (labelNames.length === 0) this.remove();
        fill(this, readings);
      },
    });

  gauge('tasks_lab_jobs', 'Export jobs per status (query 1).', ['status'], (g, r) => {
    if (r.monitoring) for (const status of JOB_STATES) g.set({ status }, r.monitoring.statusCounts[status]);
  });
  gauge('tasks_lab_outbox_unpublished', 'Outbox events not yet sent to the broker (query 2).', [], (g, r) =>
    setOrOmit(g, r.monitoring?.unpublished.count),
  );
  gauge(
    'tasks_lab_outbox_oldest_unpublished_seconds',
    'Age of the oldest unsent outbox event; no sample when none is unsent (query 2).',
    [],
    (g, r) => setOrOmit(g, r.monitoring?.unpublished.oldestAgeSeconds),
  );
  gauge('tasks_lab_expired_leases', 'Running jobs whose lease has passed (query 3).', [], (g, r) =>
    setOrOmit(g, r.monitoring?.expiredLeases),
  );
  gauge('tasks_lab_dead_letters', 'Failed jobs per dead-letter reason (query 4).', ['reason'], (g, r) => {
    for (const failure of r.monitoring?.failuresByReason ?? []) g.set({ reason: failure.reason }, failure.failed);
  });
  gauge(
    'tasks_lab_queued_without_pending',
    'Queued jobs with no unsent event (query 5): not necessarily lost.',
    [],
    (g, r) => setOrOmit(g, r.monitoring?.queuedWithoutPending.count),
  );
  gauge(
    'tasks_lab_queued_without_pending_oldest_seconds',
    "Age of the oldest such job's last dispatch (or creation); no sample when there is none (query 5).",
    [],
    (g, r) => setOrOmit(g, r.monitoring?.queuedWithoutPending.oldestDispatchAgeSeconds),
  );
  const eachQueue = (r: ScrapeReadings, set: (stage: string, queue: QueueLatency) => void) => {
    for (const stage of r.latency?.stages ?? []) for (const queue of stage.queues) set(stage.stage, queue);
  };
  gauge(
    'tasks_lab_latency_seconds',
    'Percentiles of submit -> first claim (stage start) and submit -> terminal (stage finish) over the window; no sample without jobs.',
    ['stage', 'queue', 'quantile'],
    (g, r) =>
      eachQueue(r, (stage, q) => {
        for (const [quantile, value] of [
          ['0.5', q.p50],
          ['0.95', q.p95],
          ['0.99', q.p99],
        ] as const)
          if (value !== null) g.set({ stage, queue: q.queue, quantile }, value);
      }),
  );
  gauge(
    'tasks_lab_latency_jobs',
    'Jobs that reached the stage in the window (what the percentiles cover).',
    ['stage', 'queue'],
    (g, r) => eachQueue(r, (stage, q) => g.set({ stage, queue: q.queue }, q.jobs)),
  );
  gauge(
    'tasks_lab_latency_waiting',
    'Jobs that have not reached the stage yet (never claimed; not terminal).',
    ['stage', 'queue'],
    (g, r) => eachQueue(r, (stage, q) => g.set({ stage, queue: q.queue }, q.waiting)),
  );
  gauge(
    'tasks_lab_latency_oldest_waiting_seconds',
    'Age of the oldest job that has not reached the stage; no sample when there is none.',
    ['stage', 'queue'],
    (g, r) =>
      eachQueue(r, (stage, q) => {
        if (q.oldestWaitingSeconds !== null) g.set({ stage, queue: q.queue }, q.oldestWaitingSeconds);
      }),
  );
  gauge(
    'tasks_lab_latency_target_seconds',
    "The stage's target for its p95 and its oldest waiting job.",
    ['stage'],
    (g, r) => {
      for (const stage of r.latency?.stages ?? []) g.set({ stage: stage.stage }, stage.targetSeconds);
    },
  );
  gauge(
    'tasks_lab_latency_over_target',
    "1 when the stage's p95 or its oldest waiting job is past the target, else 0.",
    ['stage', 'queue'],
    (g, r) => eachQueue(r, (stage, q) => g.set({ stage, queue: q.queue }, q.verdict === 'over-target' ? 1 : 0)),
  );
  gauge(
    'tasks_lab_table_rows',
    "Rows per table: information_schema's estimate (a trend, not an exact count).",
    ['table'],
    (g, r) => {
      for (const t of r.tables ?? []) g.set({ table: t.table }, t.rows);
    },
  );
  gauge(
    'tasks_lab_table_bytes',
    'Bytes of data and indexes per table (DATA_LENGTH + INDEX_LENGTH).',
    ['table'],
    (g, r) => {
      for (const t of r.tables ?? []) g.set({ table: t.table }, t.bytes);
    },
  );
  gauge(
    'tasks_lab_redis_keys',
    'Redis keys under a BullMQ prefix, per queue (bounded SCAN).',
    ['prefix', 'queue'],
    (g, r) => {
      for (const count of r.redisKeys ?? [])
        for (const [queue, keys] of Object.entries(count.byQueue)) g.set({ prefix: count.prefix, queue }, keys);
    },
  );
  gauge(
    'tasks_lab_redis_keys_scan_complete',
    '1 when the SCAN of a prefix reached its end, 0 when it stopped at its bound (the counts are then a lower bound).',
    ['prefix'],
    (g, r) => {
      for (const count of r.redisKeys ?? []) g.set({ prefix: count.prefix }, count.complete ? 1 : 0);
    },
  );
  gauge(
    'tasks_lab_up',
    '1 when the source answered this scrape, 0 when it did not (its gauges then have no sample).',
    ['source'],
    (g, r) => {
      g.set({ source: 'mysql' }, r.errors.mysql === undefined ? 1 : 0);
      if (options.redis) g.set({ source: 'redis' }, r.errors.redis === undefined ? 1 : 0);
    },
  );

  return {
    registry,
    metricsText: () => registry.metrics(),
    contentType: registry.contentType,
    read: scrape,
  };
}

/** The growth readings as a few lines for people (`pnpm housekeeping`). */
export function formatGrowth(readings: ScrapeReadings): string[] {
  const lines: string[] = [];
  if (readings.tables)
    for (const t of readings.tables) lines.push(`table ${t.table}: about ${t.rows} rows, ${t.bytes} bytes`);
  else lines.push(`tables: not measured (${readings.errors.mysql ?? 'no reading'})`);
  if (readings.redisKeys) {
    for (const count of readings.redisKeys) {
      const queues =
        Object.entries(count.byQueue)
          .map(([queue, keys]) => `${queue} ${keys}`)
          .join(', ') || 'none';
      lines.push(
        `redis keys under ${count.prefix}: ${queues}${count.complete ? '' : ' (SCAN stopped at its bound: at least this many)'}`,
      );
    }
  } else if (readings.errors.redis) lines.push(`redis keys: not counted (${readings.errors.redis})`);
  return lines;
}

// ---- reading the text back (the checks and the tests) ----------------------------------

/** One sample of the exposition text: `name{label="value",…} 12.5`. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL_PAIR = /([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
const unescapeLabel = (value: string): string =>
  value.replace(/\\(["\\n])/g, (_match, c: string) => (c === 'n' ? '\n' : c));

/** The samples of a Prometheus text exposition (comments and blank lines skipped). */
export function parseExposition(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE_LINE.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(LABEL_PAIR)) labels[pair[1]!] = unescapeLabel(pair[2]!);
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(
  samples: readonly MetricSample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    ?.value;
}
