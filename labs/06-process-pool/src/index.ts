export * from '@tasks-lab/05-thread-pool-io';
