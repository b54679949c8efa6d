// `pnpm publisher`: lesson 12's outbox publisher process (run exactly as lesson 15 runs it: its
// confirmation records the dispatch on the job row) on lab 16's database and key prefix, with
// the traced parts of src/traced-publisher.ts: each wake-up carries a child span of its job's
// trace, and each send the broker accepted prints one `dispatched` phase line (JSON) on stdout,
// between lesson 12's own lines.
//
// LAB_FAULTS is read ONCE, with lesson 12's points and lesson 15's confirmation's, and the same
// reading goes to the loop and to the confirmation (as in lesson 15).
//
//   pnpm publisher
//   LOG_LEVEL=silent pnpm publisher                         no phase lines
//   LAB_FAULTS=after-send:crash pnpm publisher              sent, never confirmed (the failure matrix)
import { runMain } from '@tasks-lab/lab-kit';
import { runPublisherProcess } from '@tasks-lab/12-outbox';
import { recoveryPublisherFaults } from '@tasks-lab/15-recovery';
import { describeTimings, LAB, PUBLISHER_PROCESS_OPTIONS, readObservabilityOptions } from './options.ts';
import { createPhaseLogger } from './phase-log.ts';
import { tracedPublisherParts } from './traced-publisher.ts';

async function main(): Promise<void> {
  const settings = PUBLISHER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  const timings = readObservabilityOptions();
  const faults = recoveryPublisherFaults();
  const logger = createPhaseLogger({ component: 'publisher', level: timings.logLevel });
  await runPublisherProcess({
    lab: LAB,
    database: settings.database,
    prefix: settings.queuePrefix,
    timings,
    describe: () => describeTimings(timings),
    faults,
    parts: tracedPublisherParts(logger, faults),
  });
}

runMain(import.meta.url, main);
