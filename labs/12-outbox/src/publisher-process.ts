// `pnpm publisher`: lesson 12's outbox publisher as its own OS process. It claims unsent
// events from export_outbox, sends each one's wake-up to BullMQ (outside any transaction,
// BullMQ job id = event id) and confirms it by token. A nudge on Redis wakes it after
// each submission; with no nudge it polls.
//
//   pnpm publisher                                        the course's timings (30 s claim)
//   OUTBOX_CLAIM_MS=1500 OUTBOX_POLL_MS=1000 pnpm publisher   short timings (see src/options.ts)
//   LAB_FAULTS=after-send:crash pnpm publisher            the drill: sent, never confirmed
//
// One pool per process. With Redis down it stays up, reports each failed send within the
// send bound and retries later; with MySQL down it reports each failed claim and polls.
// SIGTERM or Ctrl-C lets the round in flight finish (its sends are bounded), then closes.
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { idempotent, onShutdown, runMain, SECOND } from '@tasks-lab/lab-kit';
import { openJobsDatabase } from './database.ts';
import { describeTimings, LAB, PUBLISHER_PROCESS_OPTIONS, readOutboxOptions } from './options.ts';
import { publisherFaults, startPublisher } from './publisher.ts';

/** A round is a claim, a few bounded sends and confirms: far below this. */
export const PUBLISHER_SHUTDOWN_GRACE_MS = 10 * SECOND;

async function main(): Promise<void> {
  const settings = PUBLISHER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  const timings = readOutboxOptions();
  const faults = publisherFaults();
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  // Safe from every process at start-up: a named lock serialises it, applied files are skipped.
  await migrateLab(LAB, { database: settings.database });
  const pool = await openJobsDatabase({ database: settings.database, settings: timings });
  const publisher = await startPublisher({
    pool,
    timings,
    faults,
    log: (line) => console.log(line),
    report: (line) => console.log(`error: ${line}`),
  });
  onShutdown(
    idempotent(async () => {
      await publisher.close();
      await pool.end();
    }),
    { graceMs: PUBLISHER_SHUTDOWN_GRACE_MS },
  );
  console.log(`outbox publisher ${process.pid} ready: database ${settings.database}, nudge channel ${timings.nudgeChannel}, ${describeTimings(timings)}; ${faults.describe()}`);
}

runMain(import.meta.url, main);
