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
//   GET /metrics and GET /monitoring   the monitor's two routes (src/monitoring-routes.ts).
//
// The shape: an outer Express app whose only middleware is the trace's, and lesson 15's app
// mounted under it. The new routes are registered inside lesson 15's app (its `routes`), so a
// wrong method gets lesson 01's 405 JSON with its Allow header, an unknown path lesson 01's
// 404 JSON, and an error lesson 01's error middleware: one error shape for the whole API.
import express, { type Express } from 'express';
import type { Admission } from '@tasks-lab/13-admission';
import { createApp as createRecoveryApp, type AppOptions as RecoveryAppOptions } from '@tasks-lab/15-recovery';
import { mountMonitoringRoutes, type MonitoringRouteOptions } from './monitoring-routes.ts';
import { createPhaseLogger, type PhaseLogger } from './phase-log.ts';
import { currentTrace, admitTraced, traceContextMiddleware } from './trace-context.ts';
import { traceFields } from './trace.ts';

export interface AppOptions extends RecoveryAppOptions, Omit<MonitoringRouteOptions, 'pool'> {
  /** Where the `accepted` phase lines go. @defaultValue a phase logger on stdout, component "api" */
  logger?: PhaseLogger;
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
    // Admitted with others in one transaction (lesson 13's groups): how many. A lone admission says nothing.
    ...(admission.group && admission.group.size > 1 && { group_size: admission.group.size }),
  });
}

export function createApp(options: AppOptions): Express {
  const logger = options.logger ?? createPhaseLogger({ component: 'api' });
  const api = createRecoveryApp({
    ...options,
    admit: options.admit ?? admitTraced,
    onAdmission: (admission) => {
      // Runs after the COMMIT, still inside the request's trace (AsyncLocalStorage follows the awaits).
      logAccepted(logger, admission);
      options.onAdmission?.(admission);
    },
    routes: (app) => {
      mountMonitoringRoutes(app, options);
      options.routes?.(app);
    },
  });
  const app = express();
  app.disable('x-powered-by');
  app.use(traceContextMiddleware());
  app.use(api);
  return app;
}
