// The broker side of lesson 08: which Redis the lab talks to, under which key
// prefix, which queue and job name carry an export, and how long results stay.
// Every connection setting comes from @tasks-lab/infra, which reads the generated
// password from .env.tasks; nothing here prints it.
import { labPrefix, redisOptions, serviceSettings } from '@tasks-lab/infra';
import type { Redis, RedisOptions } from 'ioredis';
import type { QueueAddress } from './queue-layer.ts';

/** The queue the course calls `exports` (EXPORTS_QUEUE in the environment picks another). */
export const EXPORTS_QUEUE = 'exports';
/** The job name the worker registers, as the course names its task. */
export const EXPORT_JOB_NAME = 'products.export';
export type ExportJobName = typeof EXPORT_JOB_NAME;
/** Lesson 08's BullMQ key prefix: `tasks-lab08`, so parallel labs never share keys. */
export const QUEUE_PREFIX = labPrefix('08');

/** Where lesson 08's export jobs live: prefix tasks-lab08, queue `queueName`. */
export function exportsAddress(queueName: string = EXPORTS_QUEUE): QueueAddress {
  return { prefix: QUEUE_PREFIX, queueName };
}

/** The course's address: `tasks-lab08`, queue `exports`. */
export const EXPORTS_ADDRESS: QueueAddress = exportsAddress(EXPORTS_QUEUE);

/** One hour, the course's result lifetime. */
export const RESULT_TTL_SECONDS = 3600;
/** Failed jobs stay a day, so there is time to read why they failed. */
export const FAILED_RESULT_TTL_SECONDS = 24 * 3600;

/**
 * Retention options for every export job. BullMQ keeps finished jobs forever unless
 * told otherwise; `age` is in seconds. Removal is lazy: it happens when a later job
 * finishes, not on a Redis timer.
 */
export const RESULT_RETENTION = {
  removeOnComplete: { age: RESULT_TTL_SECONDS },
  removeOnFail: { age: FAILED_RESULT_TTL_SECONDS },
} as const;

/** Connection options for ioredis and BullMQ, from @tasks-lab/infra (password included: never print them). */
export function brokerConnection(overrides: RedisOptions = {}): RedisOptions {
  return redisOptions(overrides);
}

/** Where the broker is, in words safe to print: no password, only whether one is set. */
export function describeBroker(options: RedisOptions = brokerConnection()): string {
  const auth = options.password ? 'password set (from .env.tasks, not shown)' : 'NO password';
  return `redis at ${options.host}:${options.port}, prefix ${QUEUE_PREFIX}, ${auth}`;
}

/** The port the lab's own Redis listens on (6384 unless TASKS_LAB_REDIS_PORT moves it). */
export const brokerPort = (): number => serviceSettings().redisPort;

export interface BrokerSettings {
  ping: string;
  appendonly: string;
  maxmemoryPolicy: string;
}

/** Asks the broker the three things lesson 08 relies on: it answers, it persists, it never evicts. */
export async function readBrokerSettings(client: Redis): Promise<BrokerSettings> {
  const ping = await client.ping();
  const [, appendonly = ''] = (await client.config('GET', 'appendonly')) as string[];
  const [, maxmemoryPolicy = ''] = (await client.config('GET', 'maxmemory-policy')) as string[];
  return { ping, appendonly, maxmemoryPolicy };
}

/** The Redis key of a job's hash: `<prefix>:<queue>:<jobId>` (where the result lives). */
export function jobKey(queueName: string, jobId: string, prefix = QUEUE_PREFIX): string {
  return `${prefix}:${queueName}:${jobId}`;
}
