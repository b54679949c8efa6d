export * from '@tasks-lab/01-state-machine';
export * from './bounded-queue.ts';
export * from './read-product.ts';
export * from './task-group.ts';
export * from './batch.ts';
export * from './batch-recorder.ts';
export * from './deadline.ts';
export * from './export-batch.ts';
