export * from '@tasks-lab/09-redelivery';
