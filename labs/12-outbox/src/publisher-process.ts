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
import {
  describeTimings,
  LAB,
  PUBLISHER_PROCESS_OPTIONS,
  readOutboxOptions,
  type OutboxOptionValues,
} from './options.ts';
import { QUEUE_PREFIX } from './queue.ts';
import { publisherFaults, startPublisher, type PublisherFaults, type PublisherParts } from './publisher.ts';

/** A round is a claim, a few bounded sends and confirms: far below this. */
export const PUBLISHER_SHUTDOWN_GRACE_MS = 10 * SECOND;

export interface PublisherProcessSettings {
  /** Whose migrations to apply at start-up (a later lab passes its own). */
  lab: string;
  database: string;
  timings: OutboxOptionValues;
  /** BullMQ key prefix. @defaultValue tasks-lab12 */
  prefix?: string;
  /** The ready line's account of the timings. @defaultValue lesson 12's describeTimings */
  describe?: (timings: OutboxOptionValues) => string;
  /** The process's one reading of LAB_FAULTS (lesson 15's declares its confirmation's point too). @defaultValue publisherFaults() */
  faults?: Pick<PublisherFaults, 'hit' | 'describe'>;
  /** Steps to swap (lesson 15: the confirmation that records the dispatch). @defaultValue lesson 12's */
  parts?: Partial<PublisherParts>;
}

/** The process: infra, migrations, one pool, the publisher, a clean stop on SIGTERM/Ctrl-C. Lesson 13 runs it on its own database and prefix. */
export async function runPublisherProcess(settings: PublisherProcessSettings): Promise<void> {
  const { timings } = settings;
  const prefix = settings.prefix ?? QUEUE_PREFIX;
  const faults = settings.faults ?? publisherFaults();
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  // Safe from every process at start-up: a named lock serialises it, applied files are skipped.
  await migrateLab(settings.lab, { database: settings.database });
  const pool = await openJobsDatabase({ database: settings.database, settings: timings });
  const publisher = await startPublisher({
    pool,
    timings,
    prefix,
    faults,
    parts: settings.parts,
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
  const timingsText = (settings.describe ?? describeTimings)(timings);
  console.log(
    `outbox publisher ${process.pid} ready: database ${settings.database}, prefix ${prefix}, nudge channel ${timings.nudgeChannel}, ${timingsText}; ${faults.describe()}`,
  );
}

async function main(): Promise<void> {
  const settings = PUBLISHER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  await runPublisherProcess({ lab: LAB, database: settings.database, timings: readOutboxOptions() });
}

runMain(import.meta.url, main);
