// The export queue as the producer and the drills see it. Every Queue, Worker and
// QueueEvents of this lab uses the prefix `tasks-lab09`, so labs running at the same
// time on the same Redis never see each other's keys.
import { Queue, type ConnectionOptions, type Job, type JobState } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { labPrefix } from '@tasks-lab/infra';
import { brokerConnection, queueConnection } from '@tasks-lab/08-broker-worker';
import { waitFor } from '@tasks-lab/lab-kit';

export const EXPORT_TASK_NAME = 'products.export';

export function openExportQueue(queueName: string): Queue {
  // A producer should fail fast when Redis is gone rather than queue commands in memory.
  return new Queue(queueName, { connection: bullConnection({ enableOfflineQueue: false }), prefix: labPrefix('09') });
}

/** Polls a job until it reaches one of `states` (polling, not events: a SIGKILLed worker sends no events). */
export async function waitForJobState(
  queue: Queue,
  bullJobId: string,
  states: JobState[],
  timeoutMs = 60_000,
): Promise<{ state: JobState; job: Job }> {
  return waitFor(
    `job ${bullJobId} to reach ${states.join(' or ')}`,
    async () => {
      // State first, then the job: read the other way round, a job that completes between
      // the two reads comes back "completed" with the returnvalue of the earlier read (null).
      const state = await queue.getJobState(bullJobId);
      if (!(states as string[]).includes(state)) return undefined;
      const job = await queue.getJob(bullJobId);
      return job ? { state: state as JobState, job } : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/** Lab 08's broker connection (from @tasks-lab/infra), typed for BullMQ's Queue and Worker. */
export const bullConnection = (overrides: RedisOptions = {}): ConnectionOptions => queueConnection(brokerConnection(overrides));
