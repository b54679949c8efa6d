// Runs the lesson's batch once and prints what happened.
//   pnpm batch                         20 ids, 2 threads, queue capacity 4, id 7 fails
//   pnpm batch --fail 7,13             two failing ids
//   pnpm batch --capacity 1 --work-ms 200
//   pnpm batch --capacity 1 --work-ms 200 --producer exercise
//                                      the batch fed by your exercise/producer.ts (or
//                                      `solutions`): it prints the wait of every put
// The numbers can also come from the environment (BATCH_QUEUE_CAPACITY=1 pnpm batch): see src/options.ts.
import { parseArgs } from 'node:util';
import { runMain } from '@tasks-lab/lab-kit';
import { runThreadedBatch, type ThreadedBatchReport } from '../src/batch.ts';
import type { FeedQueue } from '../src/producer.ts';
import { COURSE_FAILING_IDS, THREADED_BATCH_OPTIONS } from '../src/options.ts';

/** A number flag, or undefined when it was not given (the environment or the default applies). */
const numberFlag = (text: string | undefined) => (text === undefined ? undefined : Number(text));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      capacity: { type: 'string' },
      'work-ms': { type: 'string' },
      fail: { type: 'string', default: COURSE_FAILING_IDS.join(',') },
      producer: { type: 'string' },
    },
  });
  const settings = THREADED_BATCH_OPTIONS.read({
    overrides: { capacity: numberFlag(values.capacity), workMs: numberFlag(values['work-ms']) },
  });
  const failingIds = values.fail ? values.fail.split(',').map(Number) : [];
  print(await runThreadedBatch({ ...settings, failingIds, feed: await producerNamed(values.producer) }));
}

/** The lesson's producer (no flag), or the exercise's file or its reference answer. */
async function producerNamed(name: string | undefined): Promise<FeedQueue | undefined> {
  if (name === undefined) return undefined;
  if (name !== 'exercise' && name !== 'solutions')
    throw new Error(`--producer must be exercise or solutions, got "${name}"`);
  const module = (await import(new URL(`../${name}/producer.ts`, import.meta.url).href)) as { feedQueue: FeedQueue };
  return module.feedQueue;
}

function print(report: ThreadedBatchReport): void {
  console.log(`${report.threads.length} threads online after ${Math.round(report.threadsOnlineMs)} ms`);
  // Only a producer that times its puts has waits to show (the exercise's; the lesson's times nothing).
  if (report.putTimings.length > 0)
    console.log(`puts waited (ms): ${report.putTimings.map((t) => Math.round(t.waitedMs)).join(' ')}`);
  console.log(
    `peak queue length ${report.peakQueueLength} (capacity ${report.capacity}); ` +
      `${report.blockedPuts} puts found the queue full and waited`,
  );
  console.log(`done ${report.done} + failed ${report.failed} = ${report.done + report.failed}`);
  console.log(`errors ${JSON.stringify(report.errors)}`);
  for (const thread of report.threads) console.log(`thread ${thread.threadId} exited with code ${thread.exitCode}`);
  console.log(`job ${report.job.state}: ${report.job.error ?? JSON.stringify(report.job.result)}`);
  console.log(`finished in ${Math.round(report.elapsedMs)} ms`);
}

runMain(import.meta.url, main);
