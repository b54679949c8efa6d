// Runs the lesson's batch once and prints what happened.
//   pnpm batch                         20 ids, 2 threads, queue capacity 4, id 7 fails
//   pnpm batch --fail 7,13             two failing ids
//   pnpm batch --capacity 1 --work-ms 200
import { parseArgs } from 'node:util';
import { runThreadedBatch } from '../src/batch.ts';
import { THREADED_BATCH_DEFAULTS } from '../src/options.ts';

const { values } = parseArgs({
  options: {
    capacity: { type: 'string', default: String(THREADED_BATCH_DEFAULTS.capacity) },
    'work-ms': { type: 'string', default: String(THREADED_BATCH_DEFAULTS.workMs) },
    fail: { type: 'string', default: THREADED_BATCH_DEFAULTS.failingIds.join(',') },
  },
});

const report = await runThreadedBatch({
  capacity: Number(values.capacity),
  workMs: Number(values['work-ms']),
  failingIds: values.fail ? values.fail.split(',').map(Number) : [],
});

console.log(`${report.threads.length} threads online after ${Math.round(report.threadsOnlineMs)} ms`);
const waits = report.putTimings.map((t) => Math.round(t.waitedMs));
console.log(`puts waited (ms): ${waits.join(' ')}`);
console.log(`peak queue length ${report.peakQueueLength} (capacity ${report.capacity})`);
console.log(`done ${report.done} + failed ${report.failed} = ${report.done + report.failed}`);
console.log(`errors ${JSON.stringify(report.errors)}`);
for (const thread of report.threads) console.log(`thread ${thread.threadId} exited with code ${thread.exitCode}`);
console.log(`job ${report.job.state}: ${report.job.error ?? JSON.stringify(report.job.result)}`);
console.log(`finished in ${Math.round(report.elapsedMs)} ms`);
