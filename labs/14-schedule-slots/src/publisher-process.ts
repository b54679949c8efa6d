// `pnpm publisher`: lesson 12's outbox publisher process, unchanged, on lab 14's database and
// key prefix. Each event already names its queue: a scheduled export's event says
// exports.bulk (src/schedule-once.ts), so its wake-up reaches the bulk worker, while the signal
// that created it came on exports.fast. The signals do not nudge the publisher: it finds their
// events on its next poll (OUTBOX_POLL_MS).
import { runMain } from '@tasks-lab/lab-kit';
import { runPublisherProcess } from '@tasks-lab/12-outbox';
import { describeTimings, LAB, PUBLISHER_PROCESS_OPTIONS, readScheduleOptions } from './options.ts';

async function main(): Promise<void> {
  const settings = PUBLISHER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  const timings = readScheduleOptions();
  await runPublisherProcess({
    lab: LAB,
    database: settings.database,
    prefix: settings.queuePrefix,
    timings,
    describe: () => describeTimings(timings),
  });
}

runMain(import.meta.url, main);
