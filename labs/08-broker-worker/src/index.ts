export * from '@tasks-lab/07-choosing-executors';
export * from './broker.ts';
export * from './artifacts.ts';
export * from './export-worker.ts';
export * from './producer.ts';
export * from './dashboard.ts';
export { startDashboardServer, type DashboardServer, type DashboardOptions } from './server.ts';
export { oneProductSnapshot, DEFAULT_WAIT_SECONDS } from './submit.ts';
export { runWorkerProcess } from './worker.ts';
