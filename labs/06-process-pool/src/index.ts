export * from '@tasks-lab/05-thread-pool-io';
export * from './scoring.ts';
export * from './pool-messages.ts';
export * from './process-pool.ts';
export * from './export-job.ts';
export * from './compare.ts';
