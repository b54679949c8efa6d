// `pnpm publisher`: lesson 12's outbox publisher process, unchanged, on lab 13's database
// and key prefix. It already sends each event to the queue its row names: with lesson 13
// that is exports.fast or exports.bulk, decided at admission. (The course's publisher had
// the queue written into its send call; it had to be changed to read it from the event.)
import { runMain } from '@tasks-lab/lab-kit';
import { runPublisherProcess } from '@tasks-lab/12-outbox';
import { describeTimings, LAB, PUBLISHER_PROCESS_OPTIONS, readAdmissionOptions } from './options.ts';

async function main(): Promise<void> {
  const settings = PUBLISHER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  const timings = readAdmissionOptions();
  await runPublisherProcess({
    lab: LAB,
    database: settings.database,
    prefix: settings.queuePrefix,
    timings,
    describe: () => describeTimings(timings),
  });
}

runMain(import.meta.url, main);
