export * from '@tasks-lab/08-broker-worker';
export * from './artifact.ts';
export * from './execution-log.ts';
export * from './queue.ts';
export * from './submit.ts';
export * from './export-worker.ts';
export * from './queue-settings.ts';
