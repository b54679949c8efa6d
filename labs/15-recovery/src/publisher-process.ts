// `pnpm publisher`: lesson 12's outbox publisher process on lab 15's database and key prefix,
// with one change: the confirmation after a send is src/confirm.ts's confirmAndRecordDispatch,
// which locks the event's JOB row first, confirms the event by token and stamps the job's
// last_dispatched_at in the same transaction (the recovery scanner's "dispatched, never
// claimed" pass reads that time). Everything else (claim, send, release, nudges, polling) is
// lesson 12's loop.
//
// LAB_FAULTS is read ONCE, with lesson 12's points and the confirmation's, and the same reading
// goes to the loop and to the confirmation: `confirm-holding-job-lock:delay-500:always` widens
// the window in which a worker's claim finds the job row locked (the lost wake-up's drill).
//
//   pnpm publisher
//   LAB_FAULTS=confirm-holding-job-lock:delay-500:always pnpm publisher
import { runMain } from '@tasks-lab/lab-kit';
import { runPublisherProcess } from '@tasks-lab/12-outbox';
import { dispatchRecordingParts, recoveryPublisherFaults } from './confirm.ts';
import { describeTimings, LAB, PUBLISHER_PROCESS_OPTIONS, readRecoveryOptions } from './options.ts';

async function main(): Promise<void> {
  const settings = PUBLISHER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  const timings = readRecoveryOptions();
  const faults = recoveryPublisherFaults();
  await runPublisherProcess({
    lab: LAB,
    database: settings.database,
    prefix: settings.queuePrefix,
    timings,
    describe: () => describeTimings(timings),
    faults,
    parts: dispatchRecordingParts(faults),
  });
}

runMain(import.meta.url, main);
