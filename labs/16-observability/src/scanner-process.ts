// `pnpm scanner`: lesson 15's recovery scanner process, unchanged, on lab 16's database, with one
// phase line (JSON, stdout) per job a batch moved:
//
//   src/recovery-phases.ts  the phase lines: requeued, redispatched, dead-lettered, cancelled, each
//                           with the job's trace and attempts
//
//   pnpm scanner
//   RECOVERY_SCAN_MS=200 UNCLAIMED_THRESHOLD_MS=1000 RETRY_BACKOFF_MS=500 pnpm scanner   short timings
import { runMain } from '@tasks-lab/lab-kit';
import { runScannerProcess } from '@tasks-lab/15-recovery';
import { describeTimings, LAB, readObservabilityOptions, SERVER_PROCESS_OPTIONS } from './options.ts';
import { createPhaseLogger } from './phase-log.ts';
import { logRecoveryReport } from './recovery-phases.ts';

async function main(): Promise<void> {
  const settings = SERVER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  const timings = readObservabilityOptions();
  const logger = createPhaseLogger({ component: 'scanner', level: timings.logLevel });
  await runScannerProcess({
    lab: LAB,
    database: settings.database,
    timings,
    describe: () => describeTimings(timings),
    afterBatch: (report, pool) => logRecoveryReport(pool, report, logger),
  });
}

runMain(import.meta.url, main);
