// CPU work that never yields: a busy loop for a fixed time. While it runs, the
// process's event loop is frozen, so no timer fires, including BullMQ's lock renewal.
import type { Redis } from 'ioredis';
import { recordExecution } from './execution-log.ts';

/** The deep dive's job name, on a queue of its own (BUSY_QUEUE), never on the exports queue. */
export const BUSY_JOB_NAME = 'busy';

export interface BusyJobData {
  job_id: string;
  busyMs: number;
}

export interface BusyJobResult {
  pid: number;
  spins: number;
}

/** What the inline processor (a Job) and the sandboxed one (a SandboxedJob) both carry. */
export interface BusyJobRun {
  id?: string;
  queueName: string;
  data: BusyJobData;
  attemptsStarted: number;
  attemptsMade: number;
}

export function busyLoop(ms: number): number {
  const until = Date.now() + ms;
  let spins = 0;
  while (Date.now() < until) spins += 1;
  return spins;
}

/** What both the inline and the sandboxed processor do: log the delivery, then block. */
export async function runBusyJob(log: Redis, job: BusyJobRun): Promise<BusyJobResult> {
  await recordExecution(log, job.queueName, job.data.job_id, {
    bullJobId: job.id ?? '?',
    pid: process.pid,
    attemptsStarted: job.attemptsStarted,
    attemptsMade: job.attemptsMade,
    startedAt: Date.now(),
  });
  return { pid: process.pid, spins: busyLoop(job.data.busyMs) };
}
