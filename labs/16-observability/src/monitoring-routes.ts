// Lesson 16's two read-only routes, mounted on lesson 15's API by src/app.ts:
//
//   GET /metrics     the Prometheus text (src/metrics.ts): the monitoring queries, the tables'
//                    growth, the Redis keys; 200 even when a source is down (tasks_lab_up = 0).
//   GET /monitoring  the course's six queries as one JSON snapshot (src/monitoring.ts); ages are
//                    null, not 0, when there is nothing to measure. Then the outbox alert
//                    (src/alerts.ts) and the start and finish latencies per queue against their
//                    targets (src/latency.ts), read from the database at each request.
//
// Both only read: neither takes a row lock, so a monitor polling them never slows a claim.
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import type { Pool } from 'mysql2/promise';
import { allowOnly } from '@tasks-lab/01-state-machine';
import { createMetrics, type Metrics } from './metrics.ts';
import { readMonitoringSettings, type MonitoringSettings } from './monitoring-targets.ts';
import { readMonitoring, readMonitoringReport, type MonitoringReportParts } from './monitoring.ts';
import { QUEUE_PREFIX } from './options.ts';

export interface MonitoringRouteOptions {
  /** The process's one pool. */
  pool: Pool;
  /** The client /metrics counts BullMQ keys with (the server's nudge client). None: no Redis gauges. */
  redis?: Redis;
  /** The BullMQ prefixes whose keys /metrics counts. @defaultValue [QUEUE_PREFIX] (tasks-lab16) */
  queuePrefixes?: readonly string[];
  /** What /metrics serves. @defaultValue createMetrics({ pool, redis, prefixes: queuePrefixes }) */
  metrics?: Metrics;
  /** How /monitoring reads. @defaultValue readMonitoring (the can-fail fixtures pass broken ones) */
  monitor?: typeof readMonitoring;
  /** How /monitoring judges: the latencies and the alert. @defaultValue the real parts (the can-fail fixtures pass broken ones) */
  reportParts?: Partial<Omit<MonitoringReportParts, 'readMonitoring'>>;
  /**
   * The alert threshold and the latency targets of /monitoring and /metrics.
   * @defaultValue readMonitoringSettings(): UNPUBLISHED_ALERT_MS, START_TARGET_MS, FINISH_TARGET_MS, LATENCY_WINDOW_MS, LATENCY_ROW_LIMIT, else the course-scale defaults
   */
  monitoringSettings?: MonitoringSettings;
}

/** Adds GET /metrics and GET /monitoring to an app (src/app.ts passes it to lesson 15's createApp). */
export function mountMonitoringRoutes(app: Express, options: MonitoringRouteOptions): void {
  const settings = options.monitoringSettings ?? readMonitoringSettings();
  const metrics =
    options.metrics ??
    createMetrics({
      pool: options.pool,
      redis: options.redis,
      prefixes: options.queuePrefixes ?? [QUEUE_PREFIX],
      settings,
    });
  const reportParts = { ...options.reportParts, readMonitoring: options.monitor ?? readMonitoring };
  app
    .route('/metrics')
    .get(async (_req, res) => {
      const text = await metrics.metricsText();
      res.set('Content-Type', metrics.contentType).send(text);
    })
    .all(allowOnly('GET'));
  app
    .route('/monitoring')
    .get(async (_req, res) => {
      res.json(await readMonitoringReport(options.pool, settings, reportParts));
    })
    .all(allowOnly('GET'));
}
