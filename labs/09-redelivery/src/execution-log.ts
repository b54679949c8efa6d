// Every time a processor starts a delivery it appends one entry here, before doing any
// work. The log lives in Redis, not in the worker's memory, so it survives the SIGKILL
// that the drills use: counting executions is how we see redelivery happen.
import type { Redis } from 'ioredis';
import { labPrefix } from '@tasks-lab/infra';

export interface ExecutionEntry {
  /** The BullMQ job id (one delivery channel); the business id is in the key. */
  bullJobId: string;
  pid: number;
  /** BullMQ's own count of starts, including stall re-runs. */
  attemptsStarted: number;
  /** Runs that ended in a thrown error and were retried (stall re-runs are not counted here). */
  attemptsMade: number;
  startedAt: number;
}

/** Entries expire after a day: the log is evidence for a drill, not data to keep. */
const TTL_SECONDS = 24 * 60 * 60;

export const executionLogKey = (queueName: string, businessJobId: string): string =>
  `${labPrefix('09')}:executions:${queueName}:${businessJobId}`;

export async function recordExecution(
  redis: Redis,
  queueName: string,
  businessJobId: string,
  entry: ExecutionEntry,
): Promise<void> {
  const key = executionLogKey(queueName, businessJobId);
  await redis.multi().rpush(key, JSON.stringify(entry)).expire(key, TTL_SECONDS).exec();
}

export async function readExecutions(
  redis: Redis,
  queueName: string,
  businessJobId: string,
): Promise<ExecutionEntry[]> {
  const raw = await redis.lrange(executionLogKey(queueName, businessJobId), 0, -1);
  return raw.map((line) => JSON.parse(line) as ExecutionEntry);
}

/** Removes a finished experiment's log (every business job of that queue). */
export async function clearExecutions(redis: Redis, queueName: string): Promise<void> {
  const keys = await redis.keys(executionLogKey(queueName, '*'));
  if (keys.length > 0) await redis.del(...keys);
}
