export * from '@tasks-lab/03-background-tasks';
