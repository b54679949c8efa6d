export * from '@tasks-lab/04-worker-threads';
export * from './blocking-read.ts';
export * from './read-gauge.ts';
export * from './worker-protocol.ts';
export * from './io-pool.ts';
export * from './waiting.ts';
export * from './batch-export.ts';
