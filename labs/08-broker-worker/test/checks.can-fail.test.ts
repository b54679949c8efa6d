// Each key check, fed a deliberately broken variant, must fail: a check that cannot
// fail proves nothing. The variants are real: a worker process that writes the
// wrong file, a producer without the business id, a client without the password.
import { randomUUID } from 'node:crypto';
import { startPrivateRedis, type PrivateRedis } from '@tasks-lab/infra';
import type { Check } from '@tasks-lab/lab-kit';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { brokerConnection, EXPORT_JOB_NAME, RESULT_RETENTION } from '../src/broker.ts';
import { buildChecks, type CheckDeps, type Enqueue } from '../scripts/checks.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const queues: string[] = [];
afterAll(() => obliterateQueues(queues));

function check(namePrefix: string, deps: CheckDeps = {}): Check {
  const queueName = uniqueQueueName('canfail');
  queues.push(queueName);
  const found = buildChecks({ queueName, ...deps }).find((c) => c.name.startsWith(namePrefix));
  if (!found) throw new Error(`no check named "${namePrefix}…"`);
  return found;
}

/** Adds the job like the lesson's producer, but lets BullMQ choose the job id. */
const enqueueWithoutBusinessId: Enqueue = (queue, message) =>
  queue.add(EXPORT_JOB_NAME, message as never, { ...RESULT_RETENTION });

/** Uses the business id but keeps the result forever (BullMQ's default). */
const enqueueWithoutRetention: Enqueue = (queue, message) =>
  queue.add(EXPORT_JOB_NAME, message as never, { jobId: (message as { job_id: string }).job_id });

/** Skips the message contract: whatever it is given goes to Redis. */
const enqueueUnchecked: Enqueue = (queue, message) =>
  queue.add(EXPORT_JOB_NAME, message as never, { jobId: randomUUID(), ...RESULT_RETENTION });

describe('the checks can fail', () => {
  it('When the lesson\'s own parts are used, Then the round-trip checks pass (so the failures below come from the variants)', async () => {
    const queueName = uniqueQueueName('control');
    queues.push(queueName);
    const checks = buildChecks({ queueName });
    for (const prefix of ["the producer's job id", 'the artifact file equals', 'results are kept 1 hour']) {
      const result = await checks.find((c) => c.name.startsWith(prefix))!.run();
      expect(result.ok, result.observed).toBe(true);
    }
  });

  it('When the producer lets BullMQ pick the job id, Then the "same id" check fails', async () => {
    const result = await check("the producer's job id", { enqueue: enqueueWithoutBusinessId }).run();
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/\(different\)/);
  });

  it('When the worker writes something other than the snapshot, Then the artifact check fails', async () => {
    const result = await check('the artifact file equals', { workerScript: 'test/fixtures/tampering-worker.ts' }).run();
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/DIFFERS from/);
  });

  it('When the connection has no password, Then the PING check sees NOAUTH and fails', async () => {
    const result = await check('PING answers PONG', { connection: { ...brokerConnection(), password: undefined } }).run();
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/NOAUTH/);
  });

  it('When the "anonymous" client still carries the password, Then the NOAUTH check fails', async () => {
    const result = await check('a client without the password', { withoutPassword: (options) => options }).run();
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/got PONG/);
  });

  it('When the producer sets no removeOnComplete, Then the retention check fails', async () => {
    const result = await check('results are kept 1 hour', { enqueue: enqueueWithoutRetention }).run();
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/removeOnComplete not set/);
  });

  it('When the producer skips the message contract, Then the "never reaches Redis" check fails', async () => {
    const result = await check('a malformed id, a credential field', { enqueue: enqueueUnchecked }).run();
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/ACCEPTED/);
  });

  describe('on a private Redis that may evict', () => {
    let redis: PrivateRedis | undefined;
    afterAll(() => redis?.close());

    it('When maxmemory-policy is allkeys-lru, Then the persistence check fails', async () => {
      redis = await startPrivateRedis();
      const admin = new Redis(redis.options());
      try {
        await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
      } finally {
        admin.disconnect();
      }
      const result = await check('the broker persists', { connection: redis.options() }).run();
      expect(result.ok).toBe(false);
      expect(result.observed).toMatch(/maxmemory-policy -> allkeys-lru/);
    });
  });
});
