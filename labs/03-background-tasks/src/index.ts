export * from '@tasks-lab/02-bounded-async';
export * from './task-registry.ts';
export * from './export-work.ts';
export * from './app.ts';
export * from './server.ts';
