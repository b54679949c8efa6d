// The crawl job of the time-limit drills: 'cooperative' work honours the soft limit's
// signal; 'blocking' work runs in a child process that only the hard limit can stop.
import { UnrecoverableError, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { fileURLToPath } from 'node:url';
import { sleep } from '@tasks-lab/lab-kit';
import { recordNote } from './execution-log.ts';
import { runWithHardTimeLimit, withSoftTimeLimit } from './time-limits.ts';

export const CRAWL_JOB_NAME = 'crawl-page';
export const CRAWL_CHILD_SCRIPT = fileURLToPath(new URL('./crawl-child.ts', import.meta.url));

export interface CrawlJobData {
  job_id: string;
  mode: 'cooperative' | 'blocking';
  /** How long the cooperative crawl would take if nothing stopped it. */
  work_ms: number;
}

export interface CrawlContext {
  redis: Redis;
  softTimeLimitMs: number;
  hardTimeLimitMs: number;
}

export async function processCrawl(job: Job<CrawlJobData>, context: CrawlContext): Promise<string> {
  const { job_id, mode, work_ms } = job.data;
  const note = (text: string) => recordNote(context.redis, job.queueName, job_id, text);
  if (mode === 'cooperative') {
    return withSoftTimeLimit(context.softTimeLimitMs, (signal) => crawlPolitely(work_ms, signal, note));
  }
  if (mode === 'blocking') {
    await runWithHardTimeLimit({
      script: CRAWL_CHILD_SCRIPT,
      // The child's own exit timer is set to the soft limit: it would fire first, if it could.
      args: ['block', String(context.softTimeLimitMs)],
      limitMs: context.hardTimeLimitMs,
      onStart: (pid) => note(`child pid ${pid}`),
    });
    return 'done';
  }
  throw new UnrecoverableError(`unknown crawl mode ${String(mode)}`);
}

/** 100 small slices of work; every slice waits with the signal, and cleanup runs however it ends. */
async function crawlPolitely(workMs: number, signal: AbortSignal, note: (text: string) => Promise<void>): Promise<string> {
  try {
    for (let slice = 0; slice < 100; slice++) await sleep(workMs / 100, signal);
    return 'done';
  } finally {
    await note('cleanup ran'); // e.g. delete a temp file, record progress
  }
}
