// Lesson 16's API, by name. Observability and fault injection on lesson 15's pipeline:
// structured phase logs (pino) keyed by job id, message id, lease token and attempt, never a
// product description or a credential; one W3C trace per job, from the submit through the
// outbox event and the BullMQ job to the worker; the course's monitoring queries, also served
// as Prometheus metrics; housekeeping with growth metrics; the terminal-state check of an
// artifact against its snapshot by value; the failure matrix; a BullMQ flow (the deep dive).

// Options and the database.
export * from './options.ts';
export * from './monitoring-targets.ts';
export {
  openJobsDatabase,
  freshDatabase,
  withFreshDatabase,
  recreateVerifyDatabase,
  verifyDatabaseOnce,
} from './database.ts';

// Trace context and phase logs.
export * from './trace.ts';
export * from './trace-context.ts';
export * from './phase-log.ts';
export {
  type TracedWakeUp,
  type TracedEvent,
  READ_EVENT_TRACES,
  parseTracedWakeUp,
  claimTracedEvents,
  sendTracedWakeUp,
  tracedPublisherParts,
} from './traced-publisher.ts';
export {
  OBSERVED_FAULT_POINTS,
  type ObservedFaultPoint,
  type ObservedFaults,
  observedFaults,
  observedHooks,
  type ObservedHooksOptions,
  phaseOfOutcome,
} from './delivery-phases.ts';
export {
  type StartObservedWorkerOptions,
  startObservedWorker,
  type ObservedWorkerVariant,
  runObservedWorker,
} from './worker.ts';
export { READ_RECOVERED_JOBS, logRecoveryReport } from './recovery-phases.ts';

// Monitoring, metrics, housekeeping, the terminal check, the API.
export * from './monitoring.ts';
export * from './metrics.ts';
export * from './latency.ts';
export * from './alerts.ts';
export * from './housekeeping.ts';
export * from './terminal-check.ts';
export { type MonitoringRouteOptions, mountMonitoringRoutes } from './monitoring-routes.ts';
export { createApp, logAccepted, type AppOptions } from './app.ts';
export { startServer, SHUTDOWN_GRACE_MS } from './server.ts';

// The failure matrix: rows, evidence, timelines, summary.
export * from './matrix/index.ts';

// The deep dive: a fan-out export as a BullMQ flow.
export * from './flow.ts';
