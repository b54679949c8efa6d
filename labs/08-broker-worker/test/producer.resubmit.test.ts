// One business id, one job, one file. A UUID may arrive in upper or lower case; both
// spellings name the same export, so the producer turns it into the canonical (lower-case)
// form before it becomes a BullMQ job id, a Redis key or a file name. And BullMQ ignores
// an add whose id exists: the producer compares what Redis kept with what it sent, so a
// different snapshot under a used id is refused out loud instead of silently dropped.
// Each experiment also runs against the producer as it was before (a broken variant
// kept below), to show the judgement tells the two apart.
import { encodeMessage, sampleMessage, type ExportMessage } from '@tasks-lab/07-choosing-executors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_JOB_NAME, exportsAddress, RESULT_RETENTION } from '../src/broker.ts';
import { AlreadySubmittedError, enqueueExport, type ExportJob, type ExportsQueue } from '../src/producer.ts';
import { enqueue, openQueue } from '../src/queue-layer.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const queueName = uniqueQueueName('resubmit');
let queue: ExportsQueue;

beforeAll(async () => {
  queue = await openQueue(exportsAddress(queueName));
});
afterAll(async () => {
  await queue?.close();
  await obliterateQueues([queueName]);
});

type Producer = (queue: ExportsQueue, message: unknown) => Promise<ExportJob>;

/** The producer before the fix: the id as sent, and BullMQ's returned Job taken at its word. */
const producerBeforeTheFix: Producer = (target, message) => {
  const checked = JSON.parse(encodeMessage(message).toString('utf8')) as ExportMessage;
  return enqueue(target, EXPORT_JOB_NAME, checked, { jobId: checked.job_id, jobOptions: RESULT_RETENTION });
};

/** One UUID, submitted in upper case and then in lower case: how many jobs, under which ids. */
async function twoSpellings(produce: Producer) {
  const message = sampleMessage(1);
  const before = await queue.count();
  const first = await produce(queue, { ...message, job_id: message.job_id.toUpperCase() });
  const second = await produce(queue, message);
  return {
    jobsAdded: (await queue.count()) - before,
    ids: [first.id, second.id],
    // Any key under the upper-case spelling? ('unknown': none was ever made.)
    upperCaseState: await queue.getJobState(message.job_id.toUpperCase()),
    storedJobId: (await queue.getJob(message.job_id))?.data.job_id,
    expected: {
      jobsAdded: 1,
      ids: [message.job_id, message.job_id],
      upperCaseState: 'unknown',
      storedJobId: message.job_id,
    },
  };
}

/** A used id submitted with another snapshot: what the producer says, and what Redis kept. */
async function otherSnapshot(produce: Producer) {
  const first = sampleMessage(1);
  await produce(queue, first);
  const before = await queue.count();
  const answer = await produce(queue, { ...sampleMessage(3), job_id: first.job_id }).then(
    (job) => ({ returnedProducts: job.data.products.length }),
    (err: unknown) => err,
  );
  return {
    answer,
    keptProducts: (await queue.getJob(first.job_id))?.data.products.length,
    jobsAdded: (await queue.count()) - before,
    jobId: first.job_id,
  };
}

describe('two spellings of one id', () => {
  it('When one UUID is submitted in upper case and then in lower case, Then there is one job, under the lower-case id [test:one-job-per-uuid-spelling]', async () => {
    const seen = await twoSpellings(enqueueExport);
    const { expected, ...observed } = seen;
    expect(observed).toEqual(expected);
  });

  it('When the producer from before the fix does the same, Then it makes two jobs for one export (what the test above rejects)', async () => {
    const { expected, ...observed } = await twoSpellings(producerBeforeTheFix);
    expect(observed).not.toEqual(expected);
    expect(observed.jobsAdded).toBe(2);
  });
});

describe('submitting a used id again', () => {
  it('When the same snapshot is submitted again under its id, Then the existing job comes back (no error, no second job) [test:resubmit-same-snapshot-absorbed]', async () => {
    const message = sampleMessage(2);
    await enqueueExport(queue, message);
    const before = await queue.count();
    const again = await enqueueExport(queue, { ...message, job_id: message.job_id.toUpperCase() });
    expect(again.id).toBe(message.job_id);
    expect(again.data).toEqual(message);
    expect(await queue.count()).toBe(before);
  });

  it('When another snapshot is submitted under a used id, Then it is refused with "already submitted with another snapshot" and Redis keeps the first [test:resubmit-other-snapshot-refused]', async () => {
    const seen = await otherSnapshot(enqueueExport);
    expect(seen.answer).toBeInstanceOf(AlreadySubmittedError);
    expect(seen.answer).toMatchObject({ code: 'already-submitted', jobId: seen.jobId });
    expect(String(seen.answer)).toMatch(
      `job ${seen.jobId} was already submitted with another snapshot (Redis holds 1 product(s), this submit sent 3)`,
    );
    expect(seen.keptProducts).toBe(1);
    expect(seen.jobsAdded).toBe(0);
  });

  it('When the producer from before the fix does the same, Then it returns a job showing the new snapshot while Redis kept the old one (what the test above rejects)', async () => {
    const seen = await otherSnapshot(producerBeforeTheFix);
    expect(seen.answer).toEqual({ returnedProducts: 3 });
    expect(seen.keptProducts).toBe(1);
  });
});
