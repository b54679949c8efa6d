// A sandboxed processor: BullMQ forks a child process and runs this file's default
// export there. The busy loop freezes only the child; the parent worker's event loop
// stays free and keeps renewing the job's lock. The job says which queue it came from.
import type { SandboxedJob } from 'bullmq';
import { Redis } from 'ioredis';
import { redisOptions } from '@tasks-lab/infra';
import { runBusyJob, type BusyJobData, type BusyJobResult } from './busy-work.ts';

const log = new Redis(redisOptions());

// BullMQ keeps this child alive between jobs and stops it from the parent's close().
// A parent killed with SIGKILL (the drills do that) never calls close(), and the child
// would live on as an orphan. Its IPC channel closes when the parent dies: leave with it.
process.once('disconnect', () => process.exit(0));

export default async function processBusyJob(job: SandboxedJob<BusyJobData, BusyJobResult>): Promise<BusyJobResult> {
  return runBusyJob(log, job);
}
