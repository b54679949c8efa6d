// Lesson 12's API, by name. The transactional outbox: a submission writes its job AND an
// outbox event in one transaction; a publisher claims unsent events (SKIP LOCKED + a
// token), sends each wake-up to BullMQ outside any transaction with the EVENT id as the
// BullMQ job id, and confirms by token. A nudge after each commit wakes it; polling is the
// fallback. The job record, the leases, the worker's steps and the API's conventions are
// lesson 11's: import them from @tasks-lab/11-mysql-leases.

// Options and the database.
export {
  LAB,
  JOBS_DATABASE,
  VERIFY_DATABASE,
  ARTIFACTS_DIR,
  nudgeChannel,
  OUTBOX_OPTIONS,
  type OutboxOptionValues,
  CONFIRM_FORMS,
  type ConfirmForm,
  COURSE_TIMINGS,
  SHORT_TIMINGS,
  readOutboxOptions,
  readShortOutboxOptions,
  describeTimings,
  PUBLISHER_PROCESS_OPTIONS,
  type PublisherProcessOptionValues,
  WORKER_PROCESS_OPTIONS,
  type WorkerProcessOptionValues,
  SERVER_PROCESS_OPTIONS,
  type ServerProcessOptionValues,
} from './options.ts';
export {
  openJobsDatabase,
  freshDatabase,
  withFreshDatabase,
  recreateVerifyDatabase,
  verifyDatabaseOnce,
} from './database.ts';

// The outbox table and its statements.
export {
  INSERT_EVENT,
  FIRST_EVENT_OF_JOB,
  LOCK_CLAIMABLE_EVENTS,
  CLAIM_EVENTS,
  READ_CLAIMED_EVENTS,
  CONFIRM_SENT,
  CONFIRM_SENT_EVENTS,
  READ_CONFIRMED_EVENTS,
  RELEASE_FAILED,
  READ_EVENT,
  READ_EVENTS_OF_JOB,
  COUNT_JOB_AND_EVENTS,
  COUNT_UNSENT,
  USE_COURSE_CLAIM_INDEX,
  USE_MATCHING_CLAIM_INDEX,
  EXPLAIN_CLAIM,
} from './outbox-queries.ts';
export {
  SUBMIT_FAULT_POINTS,
  type SubmitFaultPoint,
  type SubmitFaults,
  submitFaults,
  defaultSubmitFaults,
  type SubmitWithEventResult,
  type SubmitWithEventOptions,
  type SubmitSteps,
  submitWithEvent,
  type ClaimedEvent,
  claimEvents,
  confirmSent,
  confirmSentEvents,
  confirmedOf,
  releaseFailed,
  type OutboxEvent,
  readEvent,
  toOutboxEvent,
} from './outbox.ts';

// The publisher, and where it sends.
export { QUEUE_PREFIX, exportsAddress, sendWakeUp } from './queue.ts';
export {
  PUBLISHER_FAULT_POINTS,
  type PublisherFaultPoint,
  type PublisherFaults,
  publisherFaults,
  type PublisherParts,
  PUBLISHER_PARTS,
  tokenOf,
  SendTimeoutError,
  type PublisherTimings,
  type PublisherOptions,
  type PublisherStats,
  type RunningPublisher,
  startPublisher,
} from './publisher.ts';
export { openNudgeClient, publishNudge, subscribeToNudges } from './nudge.ts';
export {
  PUBLISHER_SHUTDOWN_GRACE_MS,
  type PublisherProcessSettings,
  runPublisherProcess,
} from './publisher-process.ts';

export { claimConditions } from './claim-conditions.ts';

// The worker (lesson 11's, on this lab's queue) and the API.
export { startOutboxWorker, logDeliveries } from './worker.ts';
export { type AppOptions, createApp } from './app.ts';
export { SHUTDOWN_GRACE_MS, startServer, type ApiServices, openApiServices } from './server.ts';
