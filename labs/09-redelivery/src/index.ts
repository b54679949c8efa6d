export * from '@tasks-lab/08-broker-worker';
