export * from './checks.ts';
export * from './processes.ts';
export * from './time.ts';
export * from './exercise.ts';
