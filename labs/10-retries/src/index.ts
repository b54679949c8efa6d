export * from '@tasks-lab/09-redelivery';
// Lesson 10: retries with capped full-jitter backoff, an allow-list of retryable errors,
// a deadline that travels with the job, time limits, and an idempotent deduction.
export * from './retry-policy.ts';
export * from './export-errors.ts';
export * from './execution-log.ts';
export * from './export-job.ts';
export * from './time-limits.ts';
export * from './crawl-job.ts';
export * from './deduct-job.ts';
export * from './inventory.ts';
export * from './migrate.ts';
export * from './sql/inventory.ts';
export * from './connection.ts';
export * from './worker.ts';
export * from './submit.ts';
