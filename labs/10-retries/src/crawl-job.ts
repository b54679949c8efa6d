// The crawl job of the time-limit drills: 'cooperative' work honours the soft limit's
// signal; 'blocking' work runs in a child process that only the hard limit can stop.
import type { Redis } from 'ioredis';
import { fileURLToPath } from 'node:url';
import { sleep } from '@tasks-lab/lab-kit';
import { recordNote } from './execution-log.ts';
import { checkJobData, isIdentifier, type RetryJob } from './jobs.ts';
import { runWithHardTimeLimit, withSoftTimeLimit } from './time-limits.ts';

export const CRAWL_JOB_NAME = 'crawl-page';
export const CRAWL_CHILD_SCRIPT = fileURLToPath(new URL('./crawl-child.ts', import.meta.url));

export interface CrawlJobData {
  job_id: string;
  mode: 'cooperative' | 'blocking';
  /** How long the cooperative crawl would take if nothing stopped it. */
  work_ms: number;
}

export type CrawlResult = 'done';

export function parseCrawlJobData(input: unknown): CrawlJobData {
  return checkJobData<CrawlJobData>(CRAWL_JOB_NAME, input, (data) => [
    ...(isIdentifier(data.job_id) ? [] : ['job_id must be 1-64 letters, digits, _ or -']),
    ...(data.mode === 'cooperative' || data.mode === 'blocking' ? [] : ["mode must be 'cooperative' or 'blocking'"]),
    ...(Number.isSafeInteger(data.work_ms) && Number(data.work_ms) >= 0 ? [] : ['work_ms must be a whole number >= 0']),
  ]);
}

/** Writes a fact about a crawl where the checks can read it ("cleanup ran", "child pid 1234"). */
export type CrawlNote = (text: string) => Promise<void>;

/** 100 small slices of work; every slice waits with the signal, and cleanup runs however it ends. */
export async function crawlPolitely(workMs: number, signal: AbortSignal, note: CrawlNote): Promise<CrawlResult> {
  try {
    for (let slice = 0; slice < 100; slice++) await sleep(workMs / 100, signal);
    return 'done';
  } finally {
    await note('cleanup ran'); // e.g. delete a temp file, record progress
  }
}

export interface CrawlContext {
  redis: Redis;
  softTimeLimitMs: number;
  hardTimeLimitMs: number;
  /** The cooperative work. @defaultValue crawlPolitely */
  crawl?: typeof crawlPolitely;
  /** What the hard limit's watchdog sends. @defaultValue 'SIGKILL' */
  killSignal?: NodeJS.Signals;
}

export async function processCrawl(job: RetryJob, context: CrawlContext): Promise<CrawlResult> {
  const { job_id, mode, work_ms } = parseCrawlJobData(job.data);
  const note: CrawlNote = (text) => recordNote(context.redis, job.queueName, job_id, text);
  if (mode === 'cooperative') {
    const crawl = context.crawl ?? crawlPolitely;
    return withSoftTimeLimit(context.softTimeLimitMs, (signal) => crawl(work_ms, signal, note));
  }
  await runWithHardTimeLimit({
    script: CRAWL_CHILD_SCRIPT,
    // The child's own exit timer is set to the soft limit: it would fire first, if it could.
    args: ['block', String(context.softTimeLimitMs)],
    limitMs: context.hardTimeLimitMs,
    onStart: (pid) => note(`child pid ${pid}`),
    killSignal: context.killSignal,
  });
  return 'done';
}
