// Every check of lesson 08, run against a deliberately broken part, must fail: a check
// that cannot fail proves nothing. The parts are real: a producer that skips the
// contract, the business id or the retention; a worker process that registers another
// name, trusts its input, retries a refusal, writes the wrong file or prints its
// password; a dashboard that ignores EXPORTS_QUEUE; a Redis that evicts or is open.
import { randomUUID } from 'node:crypto';
import type { ExportMessage } from '@tasks-lab/07-choosing-executors';
import { startPrivateRedis, type PrivateRedis } from '@tasks-lab/infra';
import { checkIdProblems, findCheck, runCheck } from '@tasks-lab/lab-kit';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { brokerConnection, EXPORT_JOB_NAME, RESULT_RETENTION } from '../src/broker.ts';
import { enqueue } from '../src/queue-layer.ts';
import { buildChecks, type CheckDeps, type Enqueue } from '../scripts/checks.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const queues: string[] = [];
const redises: PrivateRedis[] = [];
afterAll(async () => {
  await obliterateQueues(queues.flatMap((name) => [name, `${name}-lazy-removal`]));
  await Promise.all(redises.map((redis) => redis.close()));
});

/** Deps on a queue of this test's own, plus the broken part. */
function on(label: string, broken: CheckDeps = {}): CheckDeps {
  const queueName = uniqueQueueName(label);
  queues.push(queueName);
  return { queueName, ...broken };
}

/** A private Redis (own port and password), changed with CONFIG SET before the check asks it. */
async function privateRedis(config: Record<string, string>): Promise<CheckDeps> {
  const redis = await startPrivateRedis();
  redises.push(redis);
  const admin = new Redis(redis.options());
  try {
    for (const [name, value] of Object.entries(config)) await admin.config('SET', name, value);
  } finally {
    admin.disconnect();
  }
  return { connection: redis.options() };
}

// Broken producers: each forgets one thing enqueueExport does.
const businessId = (message: unknown) => (message as { job_id: string }).job_id;
const enqueueWithoutBusinessId: Enqueue = (queue, message) =>
  // BullMQ picks the id (a counter) when none is given.
  queue.add(EXPORT_JOB_NAME, message as ExportMessage, { ...RESULT_RETENTION });
const enqueueWithoutRetention: Enqueue = (queue, message) =>
  enqueue(queue, EXPORT_JOB_NAME, message as ExportMessage, { jobId: businessId(message) });
const enqueueUnchecked: Enqueue = (queue, message) =>
  enqueue(queue, EXPORT_JOB_NAME, message as ExportMessage, { jobId: randomUUID(), jobOptions: RESULT_RETENTION });

const fixture = (name: string) => `test/fixtures/${name}.ts`;

describe('the checks can fail', () => {
  it('When the checks are built, Then their ids are kebab-case and unique', () => {
    expect(checkIdProblems(buildChecks())).toEqual([]);
  });

  it("When the lesson's own parts are used, Then the round-trip checks pass (so the failures below come from the broken parts)", {
    timeout: 90_000,
  }, async () => {
    const checks = buildChecks(on('control'));
    const ids = [
      'worker-registers-export-job',
      'unknown-job-name-refused',
      'job-id-is-business-id',
      'artifact-equals-snapshot',
      'worker-revalidates-message',
      'result-kept-one-hour',
    ];
    for (const id of ids) {
      const result = await runCheck(findCheck(checks, id));
      expect(result.ok, `${id}: ${result.observed}`).toBe(true);
    }
  });

  const suite = canFailSuite(buildChecks);

  suite.breaks(
    'broker-answers-with-password',
    'the connection carries no password',
    () => on('ping', { connection: { ...brokerConnection(), password: undefined } }),
    {
      observed: /NOAUTH/,
    },
  );
  suite.breaks(
    'broker-refuses-anonymous-client',
    'the Redis has no requirepass',
    () => privateRedis({ requirepass: '' }),
    {
      observed: /got PONG/,
    },
  );
  suite.breaks(
    'broker-persists-never-evicts',
    'the Redis may evict keys (allkeys-lru)',
    () => privateRedis({ 'maxmemory-policy': 'allkeys-lru' }),
    {
      observed: /maxmemory-policy -> allkeys-lru/,
    },
  );
  suite.breaks(
    'worker-registers-export-job',
    'the worker registers "products.exports"',
    () => on('misnamed', { workerScript: fixture('misnamed-worker') }),
    {
      observed: /registered: products\.exports/,
    },
  );
  suite.breaks(
    'unknown-job-name-refused',
    'the worker refuses an unknown name with a plain (retried) Error',
    () => on('retried', { workerScript: fixture('retried-refusal-worker') }),
    {
      observed: /after 3 attempt/,
    },
  );
  suite.breaks(
    'job-id-is-business-id',
    'the producer lets BullMQ pick the job id',
    () => on('bullmq-id', { enqueue: enqueueWithoutBusinessId }),
    {
      observed: /\(different\)/,
    },
  );
  suite.breaks(
    'artifact-equals-snapshot',
    'the worker writes every price one cent higher',
    () => on('tampering', { workerScript: fixture('tampering-worker') }),
    {
      observed: /DIFFERS from/,
    },
  );
  suite.breaks(
    'invalid-message-refused-before-redis',
    'the producer skips the message contract',
    () => on('unchecked', { enqueue: enqueueUnchecked }),
    {
      observed: /accepted/,
    },
  );
  suite.breaks(
    'worker-revalidates-message',
    'the worker trusts the job data',
    () => on('trusting', { workerScript: fixture('trusting-worker') }),
    {
      observed: /FILE WRITTEN/,
    },
  );
  suite.breaks(
    'result-kept-one-hour',
    'the producer sets no retention',
    () => on('no-retention', { enqueue: enqueueWithoutRetention }),
    {
      observed: /removeOnComplete not set/,
    },
  );
  suite.breaks(
    'removal-is-lazy',
    'the producer ignores the retention it is given',
    () => on('lazy', { enqueue: enqueueWithoutRetention }),
    {
      observed: /after the next job completed it was "completed"/,
    },
  );
  suite.breaks(
    'drill-stopped-worker',
    'the replacement worker registers another job name',
    () => on('drill', { workerScript: fixture('misnamed-worker') }),
    {
      observed: /job failed/,
      timeoutMs: 150_000,
    },
  );
  suite.breaks(
    'dashboard-lists-queue',
    'the dashboard ignores EXPORTS_QUEUE',
    () => on('dashboard', { serverScript: fixture('fixed-queue-dashboard') }),
    {
      observed: /queues: exports \(read-only\)$/,
    },
  );
  suite.breaks(
    'no-output-shows-password',
    'the worker prints its connection options',
    () => on('leaky', { workerScript: fixture('leaky-worker') }),
    {
      observed: /a password appears in what pnpm worker printed/,
      timeoutMs: 120_000,
    },
  );

  suite.coversEveryCheck();
});
