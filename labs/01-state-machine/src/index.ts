// Lesson 01's API, by name: the job record and its state machine, the request and
// response schemas, the Express app and its server. Later labs import what they use
// from here (`import { MemoryJobStore } from '@tasks-lab/01-state-machine'`).
// Job store: MemoryJobStore, the in-memory implementation of the async JobStore contract
// (jobs live in this process only; a restart loses them).
export { type AppErrorCode, type Issue, AppError } from './app-error.ts';
export {
  JOB_STATES,
  type JobState,
  ALLOWED_TRANSITIONS,
  canTransition,
  isTerminal,
  type ExportResult,
  type ExportJob,
  type ExportJobView,
  toView,
  type TransitionPatch,
  InvalidTransitionError,
  JobNotFoundError,
  statesThatMayMoveTo,
  distinctProductIds,
  type JobStore,
  MemoryJobStore,
} from './store.ts';
export {
  MAX_PRODUCTS_PER_EXPORT,
  exportRequestSchema,
  type ExportRequest,
  jobIdSchema,
  jobResponseSchema,
  type JobResponse,
  errorResponseSchema,
  type ErrorResponse,
  toJobResponse,
  emptyBodyError,
  parseExportRequest,
  parseRequestBody,
  parseJobId,
} from './schemas.ts';
export { MAX_BODY_BYTES, type AppOptions, requireJson, parseJsonBody, allowOnly, createApp } from './app.ts';
export { SERVER_OPTIONS } from './options.ts';
export { SHUTDOWN_GRACE_MS, type RunningServer, listen, startServer } from './server.ts';
export { notFoundError, notFoundHandler, errorMiddleware, type ErrorTranslator } from './error-middleware.ts';
