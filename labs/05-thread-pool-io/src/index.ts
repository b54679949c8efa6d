export * from '@tasks-lab/04-worker-threads';
