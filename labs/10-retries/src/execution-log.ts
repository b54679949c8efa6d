// Counting real executions. The worker runs in its own process, so it writes what
// it did to Redis: one list entry per processor call ("run") and a counter per read
// of the product source. A check then counts them, instead of trusting a log line.
import type { Redis } from 'ioredis';
import { labPrefix } from '@tasks-lab/infra';

/** Entries expire: the lab never leaves its evidence lying around for long. */
const EVIDENCE_TTL_SECONDS = 60 * 60;

export interface RetryRun {
  /** 1 for the first run. */
  attempt: number;
  /** When the processor was called (epoch ms). */
  startedAt: number;
}

const runsKey = (queue: string, jobId: string) => `${labPrefix('10')}:evidence:${queue}:${jobId}:runs`;
const readsKey = (queue: string, jobId: string) => `${labPrefix('10')}:evidence:${queue}:${jobId}:reads`;
const notesKey = (queue: string, jobId: string) => `${labPrefix('10')}:evidence:${queue}:${jobId}:notes`;

export async function recordRetryRun(redis: Redis, queue: string, jobId: string, run: RetryRun): Promise<void> {
  await redis
    .multi()
    .rpush(runsKey(queue, jobId), JSON.stringify(run))
    .expire(runsKey(queue, jobId), EVIDENCE_TTL_SECONDS)
    .exec();
}

export async function recordSourceRead(redis: Redis, queue: string, jobId: string): Promise<void> {
  await redis.multi().incr(readsKey(queue, jobId)).expire(readsKey(queue, jobId), EVIDENCE_TTL_SECONDS).exec();
}

/** A free-form fact, e.g. "cleanup ran" or "child pid 1234". */
export async function recordNote(redis: Redis, queue: string, jobId: string, note: string): Promise<void> {
  await redis.multi().rpush(notesKey(queue, jobId), note).expire(notesKey(queue, jobId), EVIDENCE_TTL_SECONDS).exec();
}

export interface RetryEvidence {
  runs: RetryRun[];
  reads: number;
  notes: string[];
}

export async function readRetryEvidence(redis: Redis, queue: string, jobId: string): Promise<RetryEvidence> {
  const [runs, reads, notes] = await Promise.all([
    redis.lrange(runsKey(queue, jobId), 0, -1),
    redis.get(readsKey(queue, jobId)),
    redis.lrange(notesKey(queue, jobId), 0, -1),
  ]);
  return { runs: runs.map((r) => JSON.parse(r) as RetryRun), reads: Number(reads ?? 0), notes };
}

/** The waits between consecutive runs, in ms. */
export function gapsBetweenRuns(runs: RetryRun[]): number[] {
  const gaps: number[] = [];
  let previous: RetryRun | undefined;
  for (const run of runs) {
    if (previous) gaps.push(run.startedAt - previous.startedAt);
    previous = run;
  }
  return gaps;
}
