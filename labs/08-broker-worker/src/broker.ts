// The broker side of lesson 08: which Redis the lab talks to, under which key
// prefix, which queue and job name carry an export, and how long results stay.
// Every connection setting comes from @tasks-lab/infra, which reads the generated
// password from .env.tasks; nothing here prints it.
import { HOST, labPrefix, redisOptions, serviceSettings } from '@tasks-lab/infra';
import { CodedError, errorMessage, SECOND } from '@tasks-lab/lab-kit';
import { Redis, type RedisOptions } from 'ioredis';
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

/** How long a process waits for its first answer from the broker before it gives up. */
export const BROKER_REACH_TIMEOUT_MS = 5 * SECOND;

/**
 * The broker does not answer at the address this process was given. The message says
 * where the broker is from this machine, and what the address looks like it came from.
 */
export class BrokerUnreachableError extends CodedError {
  constructor(
    readonly address: string,
    reason: string,
    hint: string,
  ) {
    super('broker-unreachable', `cannot reach the broker at ${address} (${reason}); ${hint}`);
  }
}

/**
 * What to check, in one sentence, from the address and the broker's refusal. From the
 * host (where every lab process runs) the broker is 127.0.0.1 on the lab's port; a
 * Compose service name such as `redis` with the container port 6379 only works from
 * another container on the same Docker network, and any other port was typed by hand
 * (TASKS_LAB_REDIS_PORT moves brokerConnection() and the infra together). NOAUTH or WRONGPASS means the address is right and the
 * password is not the one in .env.tasks.
 */
export function brokerHint(options: RedisOptions, reason: string): string {
  const where = `on this machine the lab's Redis is ${HOST}:${brokerPort()} (use brokerConnection())`;
  const host = options.host ?? HOST;
  if (/NOAUTH|WRONGPASS/.test(reason))
    return `the broker answered but refused the password: ${where}, which reads it from .env.tasks`;
  if (host !== HOST && host !== 'localhost') {
    return `${where}; "${host}" is a name inside a Docker Compose network, reachable only from another container on it`;
  }
  if (options.port !== brokerPort()) {
    return `${where}; port ${options.port} is not the lab's broker port ${brokerPort()} (typed by hand, or kept from an older setup?)`;
  }
  return `${where}; is it running? \`pnpm -w infra:status\` says`;
}

/**
 * Asks the broker for PONG once, with no retries, within `timeoutMs`. BullMQ itself
 * never gives up on a wrong address: it reconnects for ever and logs the same
 * ENOTFOUND or ECONNREFUSED line every second. A process calls this first, so a wrong
 * address ends it at once with BrokerUnreachableError.
 */
export async function assertBrokerReachable(
  options: RedisOptions = brokerConnection(),
  timeoutMs = BROKER_REACH_TIMEOUT_MS,
): Promise<void> {
  const client = new Redis({
    ...options,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  let lastError = '';
  client.on('error', (err: Error) => {
    lastError = err.message;
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect().then(() => client.ping()), deadline]);
  } catch (err) {
    const reason = (lastError || errorMessage(err)).split('\n')[0] ?? '';
    throw new BrokerUnreachableError(`${options.host ?? HOST}:${options.port}`, reason, brokerHint(options, reason));
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}

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
