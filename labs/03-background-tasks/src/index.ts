export * from '@tasks-lab/02-bounded-async';
