export * from '@tasks-lab/06-process-pool';
export * from './decision-record.ts';
export * from './evidence.ts';
export * from './earlier-labs.ts';
export * from './message-contract.ts';
export * from './sample-messages.ts';
