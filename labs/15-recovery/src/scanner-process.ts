// `pnpm scanner`: lesson 15's recovery scanner as its own OS process, supervised by itself:
// a failing batch is reported and the loop goes on. One line per recovered job.
//
//   pnpm scanner                                     the course's timings (every 5 s, 10 s backoff, 60 s unclaimed)
//   RECOVERY_SCAN_MS=200 UNCLAIMED_THRESHOLD_MS=1000 RETRY_BACKOFF_MS=500 pnpm scanner   short timings
//   LAB_EXERCISE=student pnpm scanner                 expired leases decided by YOUR exercise/expired-lease.ts
//
// After a batch that wrote events it nudges the publisher (lesson 12's nudge, on Redis), so a
// redispatched job is sent at once rather than on the publisher's next poll; a lost nudge costs
// one poll interval. SIGTERM or Ctrl-C stops it after the batch in flight, then closes the pool.
import type { Pool } from 'mysql2/promise';
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { errorMessage, idempotent, onShutdown, runMain, SECOND } from '@tasks-lab/lab-kit';
import { openNudgeClient, publishNudge } from '@tasks-lab/12-outbox';
import { openJobsDatabase } from './database.ts';
import { EXPIRED_LEASE_RULE_FILE } from './expired-lease-rule.ts';
import {
  describeTimings,
  LAB,
  readRecoveryOptions,
  SERVER_PROCESS_OPTIONS,
  type RecoveryOptionValues,
} from './options.ts';
import type { RecoveryReport } from './recovery.ts';
import { startScanner } from './scanner.ts';

/** A batch is three short transactions: far below this. */
export const SCANNER_SHUTDOWN_GRACE_MS = 10 * SECOND;

const wroteEvents = (report: RecoveryReport) => report.requeued.length + report.redispatched.length > 0;

/** What the process runs with: lesson 15's own lab, or a later lesson's (its database, timings and phase logs). */
export interface ScannerProcessSettings {
  /** Whose migrations to apply at start-up. */
  lab: string;
  database: string;
  timings: RecoveryOptionValues;
  /** The ready line's account of the timings. @defaultValue lesson 15's describeTimings */
  describe?: () => string;
  /**
   * Told about each batch that committed, before the nudge (lesson 16 logs a phase per recovered
   * job here). A throw is reported; the nudge still goes.
   */
  afterBatch?: (report: RecoveryReport, pool: Pool) => void | Promise<void>;
}

/** The process: infra, migrations, one pool, the supervised scanner, a clean stop on SIGTERM/Ctrl-C. */
export async function runScannerProcess(settings: ScannerProcessSettings): Promise<void> {
  const { timings } = settings;
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  // Safe from every process at start-up: a named lock serialises it, applied files are skipped.
  await migrateLab(settings.lab, { database: settings.database });
  const pool = await openJobsDatabase({ database: settings.database, settings: timings });
  const redis = openNudgeClient();
  const report = (line: string) => console.log(`error: ${line}`);
  const scanner = startScanner({
    pool,
    timings,
    log: (line) => console.log(line),
    report,
    onBatch: async (batch) => {
      if (settings.afterBatch)
        await Promise.resolve(settings.afterBatch(batch, pool)).catch((err: unknown) =>
          report(`after the batch: ${errorMessage(err)}`),
        );
      if (wroteEvents(batch))
        await publishNudge(redis, { channel: timings.nudgeChannel }).catch((err: unknown) =>
          report(`nudge failed: ${errorMessage(err)}`),
        );
    },
  });
  onShutdown(
    idempotent(async () => {
      await scanner.close();
      redis.disconnect();
      await pool.end();
    }),
    { graceMs: SCANNER_SHUTDOWN_GRACE_MS },
  );
  // Said only when it is not the reference answer: a student running their own rule should know.
  if (!EXPIRED_LEASE_RULE_FILE.startsWith('solutions/'))
    console.log(`expired leases are decided by your ${EXPIRED_LEASE_RULE_FILE} (LAB_EXERCISE=student)`);
  const timingsText = settings.describe ? settings.describe() : describeTimings(timings);
  console.log(
    `recovery scanner ${process.pid} ready: database ${settings.database}, nudge channel ${timings.nudgeChannel}, ${timingsText}`,
  );
}

async function main(): Promise<void> {
  const settings = SERVER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  await runScannerProcess({ lab: LAB, database: settings.database, timings: readRecoveryOptions() });
}

runMain(import.meta.url, main);
