export * from '@tasks-lab/07-choosing-executors';
