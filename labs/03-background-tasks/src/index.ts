// Lesson 03's API, by name: the task registry, the background export work and the
// server that starts it after answering. Lesson 01's names (the job store, the app and
// its server) are imported from @tasks-lab/01-state-machine where they are needed.
// Job store: lesson 01's MemoryJobStore (in memory, in the server process only, which is
// exactly what the SIGKILL drill shows).
export { BACKGROUND_SERVER_OPTIONS, type BackgroundServerSettings, BACKGROUND_DEFAULTS } from './options.ts';
export {
  type TaskWork,
  type TaskOutcome,
  type TaskFailure,
  type ShutdownReport,
  type TaskRegistryOptions,
  TaskRegistry,
} from './task-registry.ts';
export { type ExportWork, simulatedExport, runExportJob } from './export-work.ts';
export {
  type BackgroundRouteOptions,
  backgroundExportRoutes,
  type BackgroundAppOptions,
  createBackgroundApp,
} from './app.ts';
export {
  type BackgroundServerOptions,
  type RunningBackgroundServer,
  startBackgroundServer,
} from './server.ts';
