export * from '@tasks-lab/01-state-machine';
