// The metrics registry (src/metrics.ts) against a fresh database and the lab's real Redis:
// low-cardinality labels only, a registry of its own, null ages left out, a scrape that still
// answers with a source down, a bounded SCAN that says when it stopped early.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { register as globalRegistry } from 'prom-client';
import { redisOptions } from '@tasks-lab/infra';
import { openNudgeClient } from '@tasks-lab/12-outbox';
import { finishAndLeave } from '@tasks-lab/13-admission';
import { freshDatabase, openJobsDatabase, type FreshDatabase } from '../src/database.ts';
import { countRedisKeys, createMetrics, parseExposition, redisReady, sampleValue } from '../src/metrics.ts';
import { recordingFirstClaim } from '../src/latency.ts';
import { readMonitoring } from '../src/monitoring.ts';
import { MONITORING_DEFAULTS } from '../src/monitoring-targets.ts';
import { admitTraced } from '../src/trace-context.ts';

let db: FreshDatabase;
let redis: Redis;
/** Keys of this file's own, under a prefix nobody else uses; deleted at the end. */
const prefix = `tasks-lab16-x${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  db = await freshDatabase('metrics');
  redis = await redisReady(openNudgeClient());
});
afterAll(async () => {
  if (redis) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    redis.disconnect();
  }
  await db?.drop();
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const ALLOWED_LABELS = new Set(['status', 'reason', 'table', 'prefix', 'queue', 'source', 'stage', 'quantile']);

describe('createMetrics', () => {
  it('When nothing is unsent, Then the age gauges have no sample at all (null is not 0); once an event waits, they do [test:metrics-null-age-omitted]', async () => {
    const metrics = createMetrics({ pool: db.pool });
    const empty = parseExposition(await metrics.metricsText());
    expect(sampleValue(empty, 'tasks_lab_outbox_oldest_unpublished_seconds')).toBeUndefined();
    expect(sampleValue(empty, 'tasks_lab_queued_without_pending_oldest_seconds')).toBeUndefined();
    expect(sampleValue(empty, 'tasks_lab_outbox_unpublished')).toBe(0);
    await admitTraced(db.pool, [1, 2]);
    const after = parseExposition(await metrics.metricsText());
    expect(sampleValue(after, 'tasks_lab_outbox_unpublished')).toBe(1);
    expect(sampleValue(after, 'tasks_lab_outbox_oldest_unpublished_seconds')).toBeGreaterThan(0);
  });

  it('When jobs exist and BullMQ-style keys hold UUIDs, Then no label value is an id and every label is one of the low-cardinality few [test:metrics-no-job-id-label]', async () => {
    for (let i = 0; i < 3; i += 1) await admitTraced(db.pool, [1]);
    await redis.set(`${prefix}:exports.fast:${randomUUID()}`, '1');
    await redis.set(`${prefix}:exports.bulk:${randomUUID()}:lock`, '1');
    const metrics = createMetrics({ pool: db.pool, redis, prefixes: [prefix] });
    const text = await metrics.metricsText();
    expect(text).not.toMatch(UUID);
    const samples = parseExposition(text);
    expect(samples.length).toBeGreaterThan(10);
    for (const sample of samples)
      for (const label of Object.keys(sample.labels))
        expect(ALLOWED_LABELS.has(label), `label ${label} on ${sample.name}`).toBe(true);
    expect(sampleValue(samples, 'tasks_lab_redis_keys', { prefix, queue: 'exports.fast' })).toBe(1);
    expect(sampleValue(samples, 'tasks_lab_redis_keys', { prefix, queue: 'exports.bulk' })).toBe(1);
    // The numbers are readMonitoring's.
    const snapshot = await readMonitoring(db.pool);
    expect(sampleValue(samples, 'tasks_lab_jobs', { status: 'queued' })).toBe(snapshot.statusCounts.queued);
    expect(sampleValue(samples, 'tasks_lab_table_bytes', { table: 'export_jobs' })).toBeGreaterThan(0);
    expect(sampleValue(samples, 'tasks_lab_table_rows', { table: 'export_jobs' })).toBeTypeOf('number');
  });

  it("When two registries are made in one process, Then neither collides and prom-client's global registry holds none of them [test:metrics-own-registry]", async () => {
    const a = createMetrics({ pool: db.pool });
    const b = createMetrics({ pool: db.pool });
    expect(a.registry).not.toBe(b.registry);
    expect(await a.metricsText()).toMatch(/tasks_lab_jobs\{status="queued"\}/);
    expect(await b.metricsText()).toMatch(/tasks_lab_jobs\{status="queued"\}/);
    expect((await globalRegistry.getMetricsAsJSON()).filter((m) => m.name.startsWith('tasks_lab_'))).toEqual([]);
    expect(a.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('When Redis is unreachable and then the database pool is closed, Then the scrape still answers, tasks_lab_up says 0 and that source has no samples [test:metrics-source-down-still-answers]', async () => {
    const deadRedis = new Redis({
      ...redisOptions(),
      port: 1,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    deadRedis.on('error', () => {});
    try {
      const redisDown = parseExposition(
        await createMetrics({ pool: db.pool, redis: deadRedis, prefixes: [prefix] }).metricsText(),
      );
      expect(sampleValue(redisDown, 'tasks_lab_up', { source: 'redis' })).toBe(0);
      expect(sampleValue(redisDown, 'tasks_lab_up', { source: 'mysql' })).toBe(1);
      expect(redisDown.some((s) => s.name === 'tasks_lab_redis_keys')).toBe(false);
      expect(sampleValue(redisDown, 'tasks_lab_jobs', { status: 'queued' })).toBeGreaterThan(0);

      const closed = await openJobsDatabase({ database: db.name });
      await closed.end();
      const metrics = createMetrics({ pool: closed, redis, prefixes: [prefix] });
      const mysqlDown = parseExposition(await metrics.metricsText());
      expect(sampleValue(mysqlDown, 'tasks_lab_up', { source: 'mysql' })).toBe(0);
      expect(sampleValue(mysqlDown, 'tasks_lab_up', { source: 'redis' })).toBe(1);
      for (const name of [
        'tasks_lab_jobs',
        'tasks_lab_outbox_unpublished',
        'tasks_lab_expired_leases',
        'tasks_lab_table_rows',
      ]) {
        expect(
          mysqlDown.some((s) => s.name === name),
          `${name} has a sample with the database down`,
        ).toBe(false);
      }
      expect((await metrics.read()).errors.mysql).toBeTypeOf('string');
    } finally {
      deadRedis.disconnect();
    }
  });

  it('When a prefix holds more keys than the SCAN bound covers, Then the count is a lower bound and says so; glob characters in a prefix match literally [test:metrics-redis-scan-bounded]', async () => {
    const many = `${prefix}-many`;
    const pipeline = redis.pipeline();
    for (let i = 0; i < 1200; i += 1) pipeline.set(`${many}:exports.bulk:${i}`, '1');
    await pipeline.exec();
    const bounded = await countRedisKeys(redis, many, 1);
    expect(bounded.complete).toBe(false);
    expect(bounded.byQueue['exports.bulk']).toBeLessThan(1200);
    const full = await countRedisKeys(redis, many);
    expect(full).toEqual({ prefix: many, byQueue: { 'exports.bulk': 1200 }, complete: true });
    // `?` would match any one character if it were not escaped.
    expect((await countRedisKeys(redis, `${many.slice(0, -1)}?`)).byQueue).toEqual({});
  });

  it("When jobs were claimed and finished, Then the latency gauges give each stage's percentiles, counts and target per queue, and a waiting job's age; no percentile sample where no job finished [test:metrics-latency-gauges]", async () => {
    const settings = { ...MONITORING_DEFAULTS, startTargetMs: 5000 };
    const empty = parseExposition(await createMetrics({ pool: db.pool, settings }).metricsText());
    expect(sampleValue(empty, 'tasks_lab_latency_target_seconds', { stage: 'start' })).toBe(5);
    expect(sampleValue(empty, 'tasks_lab_latency_target_seconds', { stage: 'finish' })).toBe(600);
    expect(empty.some((s) => s.name === 'tasks_lab_latency_seconds' && s.labels.queue === 'exports.bulk')).toBe(false);
    const { jobId } = await admitTraced(db.pool, [1, 2]);
    const attempt = await recordingFirstClaim()(db.pool, jobId, { leaseMs: 30_000, maxAttempts: 3 });
    if (attempt.outcome !== 'claimed') throw new Error(`claim: ${attempt.outcome}`);
    expect(await finishAndLeave(db.pool, jobId, attempt.job.token, 'x.json')).toBe(true);
    await admitTraced(db.pool, [3]); // left queued: it waits for its start
    const samples = parseExposition(await createMetrics({ pool: db.pool, settings }).metricsText());
    const fast = { queue: 'exports.fast' };
    for (const stage of ['start', 'finish']) {
      for (const quantile of ['0.5', '0.95', '0.99'])
        expect(
          sampleValue(samples, 'tasks_lab_latency_seconds', { stage, ...fast, quantile }),
          `${stage} ${quantile}`,
        ).toBeGreaterThan(0);
      expect(sampleValue(samples, 'tasks_lab_latency_jobs', { stage, ...fast })).toBe(1);
    }
    expect(sampleValue(samples, 'tasks_lab_latency_waiting', { stage: 'start', ...fast })).toBeGreaterThan(0);
    expect(
      sampleValue(samples, 'tasks_lab_latency_oldest_waiting_seconds', { stage: 'start', ...fast }),
    ).toBeGreaterThan(0);
    expect(sampleValue(samples, 'tasks_lab_latency_over_target', { stage: 'finish', ...fast })).toBe(0);
    expect(sampleValue(samples, 'tasks_lab_latency_jobs', { stage: 'finish', queue: 'exports.bulk' })).toBe(0);
    expect(
      sampleValue(samples, 'tasks_lab_latency_seconds', { stage: 'finish', queue: 'exports.bulk', quantile: '0.95' }),
    ).toBeUndefined();
  });

  it('When the exposition text is read back, Then names, labels (escaped quotes too) and values come out [test:metrics-exposition-parsed]', () => {
    const samples = parseExposition(
      '# HELP x h\n# TYPE x gauge\nx 3\ny{a="1",b="say \\"hi\\""} 2.5\n\nz{q="exports.fast"} -1\n',
    );
    expect(samples).toEqual([
      { name: 'x', labels: {}, value: 3 },
      { name: 'y', labels: { a: '1', b: 'say "hi"' }, value: 2.5 },
      { name: 'z', labels: { q: 'exports.fast' }, value: -1 },
    ]);
    expect(sampleValue(samples, 'y', { a: '1' })).toBe(2.5);
    expect(sampleValue(samples, 'y', { a: '2' })).toBeUndefined();
  });
});
