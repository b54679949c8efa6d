// Lesson 16's HTTP API: lesson 15's (POST /exports behind the admission gate, GET /exports/:id,
// GET /backlog, POST /schedule-slots, POST /exports/:id/cancel and /replay), with three changes:
//
//   every request   runs inside its trace (src/trace-context.ts): a child span of a valid
//                   `traceparent` header, else a new trace; the answer carries the span's
//                   `traceparent`. An invalid header is ignored, never a 4xx: tracing must not
//                   refuse work.
//   POST /exports   admits with admitTraced (the trace is written on the job in the admission's
//                   transaction) and logs the phase `accepted` (job_id, trace_id, span_id, queue)
//                   as a JSON phase line after the COMMIT.
//   GET /metrics    the Prometheus text (src/metrics.ts): the monitoring queries, the tables'
//                   growth, the Redis keys; 200 even when a source is down (tasks_lab_up = 0).
//   GET /monitoring the course's six queries as one JSON snapshot (src/monitoring.ts); ages
//                   are null, not 0, when there is nothing to measure. Then the outbox alert
//                   (src/alerts.ts) and the start and finish latencies per queue against their
//                   targets (src/latency.ts), read from the database at each request.
//
// The shape: an outer Express app whose only middleware is the trace's, and lesson 15's app
// mounted under it. The new routes are registered inside lesson 15's app (its `routes`), so a
// wrong method gets lesson 01's 405 JSON with its Allow header, an unknown path lesson 01's
// 404 JSON, and an error lesson 01's error middleware: one error shape for the whole API.
import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import { allowOnly } from '@tasks-lab/01-state-machine';
import type { Admission } from '@tasks-lab/13-admission';
import { createApp as createRecoveryApp, type AppOptions as RecoveryAppOptions } from '@tasks-lab/15-recovery';
import { createMetrics, type Metrics } from './metrics.ts';
import { readMonitoring, readMonitoringReport, type MonitoringReportParts } from './monitoring.ts';
import { QUEUE_PREFIX } from './options.ts';
import { readMonitoringSettings, type MonitoringSettings } from './monitoring-targets.ts';
import { createPhaseLogger, type PhaseLogger } from './phase-log.ts';
import { currentTrace, admitTraced, traceContextMiddleware } from './trace-context.ts';
import { traceFields } from './trace.ts';

export interface AppOptions extends RecoveryAppOptions {
  /** The client /metrics counts BullMQ keys with (the server's nudge client). None: no Redis gauges. */
  redis?: Redis;
  /** The BullMQ prefixes whose keys /metrics counts. @defaultValue [QUEUE_PREFIX] (tasks-lab16) */
  queuePrefixes?: readonly string[];
  /** What /metrics serves. @defaultValue createMetrics({ pool, redis, prefixes: queuePrefixes }) */
  metrics?: Metrics;
  /** Where the `accepted` phase lines go. @defaultValue a phase logger on stdout, component "api" */
  logger?: PhaseLogger;
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

/**
 * The `accepted` phase line: the job, its trace (the request's span), its queue, and what the gate
 * read under its lock (active_before of limit): the soak checks from these lines that no admission
 * ever saw the service full.
 */
export function logAccepted(logger: PhaseLogger, admission: Admission): void {
  logger.phase({
    job_id: admission.jobId,
    phase: 'accepted',
    ...traceFields(currentTrace()),
    queue: admission.queueName,
    active_before: admission.activeBefore,
    limit: admission.limit,
  });
}

export function createApp(options: AppOptions): Express {
  const logger = options.logger ?? createPhaseLogger({ component: 'api' });
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
  const api = createRecoveryApp({
    ...options,
    admit: options.admit ?? admitTraced,
    onAdmission: (admission) => {
      // Runs after the COMMIT, still inside the request's trace (AsyncLocalStorage follows the awaits).
      logAccepted(logger, admission);
      options.onAdmission?.(admission);
    },
    routes: (app) => {
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
      options.routes?.(app);
    },
  });
  const app = express();
  app.disable('x-powered-by');
  app.use(traceContextMiddleware());
  app.use(api);
  return app;
}
