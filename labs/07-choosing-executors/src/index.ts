export * from '@tasks-lab/06-process-pool';
