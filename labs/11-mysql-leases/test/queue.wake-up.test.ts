// BullMQ's role in lesson 11: a wake-up carrying only the job id, a fresh BullMQ job id per
// wake-up, no BullMQ retries. And why not the business id: BullMQ ignores an add whose id
// it still holds, so a job requeued after a lost lease could not be woken again.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_JOB_NAME, enqueue, openQueue, type ExportJobName } from '@tasks-lab/08-broker-worker';
import {
  InvalidWakeUpError,
  WAKE_UP_JOB_OPTIONS,
  exportsAddress,
  parseWakeUp,
  wakeWorker,
  type DeliveryOutcome,
  type WakeUpMessage,
  type WakeUpQueue,
} from '../src/queue.ts';

describe('the wake-up message', () => {
  it('When a message holds anything but a UUID job_id, Then parseWakeUp refuses it [test:wake-up-only-job-id]', () => {
    const id = randomUUID();
    expect(parseWakeUp({ job_id: id.toUpperCase() })).toEqual({ job_id: id });
    for (const bad of [
      { job_id: id, products: [] },
      { job_id: '../../etc/passwd' },
      { job_id: 42 },
      {},
      null,
      [id],
      `{"job_id":"${id}"}`,
    ]) {
      expect(() => parseWakeUp(bad), JSON.stringify(bad)).toThrow(InvalidWakeUpError);
    }
  });
});

describe('waking a worker through BullMQ', () => {
  let queue: WakeUpQueue;
  beforeAll(async () => {
    queue = await openQueue<WakeUpMessage, DeliveryOutcome, ExportJobName>(
      exportsAddress(`exports-wake-${randomBytes(4).toString('hex')}`),
    );
  });
  afterAll(async () => {
    await queue?.obliterate({ force: true });
    await queue?.close();
  });

  it('When one job is woken twice, Then BullMQ holds two wake-ups, each { job_id } only, with attempts 1 [test:fresh-wake-up-id]', async () => {
    const jobId = randomUUID();
    const first = await wakeWorker(queue, jobId);
    const second = await wakeWorker(queue, jobId);
    expect(first.id).not.toBe(second.id);
    for (const wake of [first, second]) {
      const stored = await queue.getJob(wake.id!);
      expect(stored?.data).toEqual({ job_id: jobId });
      expect(stored?.opts.attempts).toBe(1);
    }
    expect(await queue.getWaitingCount()).toBe(2);
  });

  it('When the business job id is used as the BullMQ job id, Then a second wake-up is silently dropped while the first is kept [test:business-id-drops-wake-up]', async () => {
    const jobId = randomUUID();
    const add = () => enqueue(queue, EXPORT_JOB_NAME, { job_id: jobId }, { jobId, jobOptions: WAKE_UP_JOB_OPTIONS });
    const first = await add();
    const again = await add(); // e.g. after the lease was lost and the job requeued
    expect(again.id).toBe(first.id);
    const waiting = (await queue.getWaiting()).filter((job) => job.data.job_id === jobId);
    expect(waiting).toHaveLength(1);
  });
});
