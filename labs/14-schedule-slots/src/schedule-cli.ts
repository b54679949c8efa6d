// `pnpm schedule`: registers the periodic signal, a BullMQ Job Scheduler on exports.fast, and
// says when its next run is planned. `pnpm schedule -- --remove` removes it.
//
// There is no beat process to keep running: the scheduler is a record in Redis, and the fast
// worker makes each next run when it starts the current one. Registering is an UPSERT by id
// (SCHEDULE_ID): running this twice leaves one scheduler and one pending run, not two (the
// course's "two beats double the runs" cannot happen with one id). A different id WOULD be a
// second schedule: the slot table still makes one job per slot, but every signal is sent twice.
//
//   pnpm schedule                                 every 60 s (the course's)
//   SCHEDULE_EVERY_MS=5000 pnpm schedule          every 5 s (re-registering changes the interval)
//   pnpm schedule -- --remove                     no more signals (its pending run goes with it)
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { runMain } from '@tasks-lab/lab-kit';
import { openQueue } from '@tasks-lab/08-broker-worker';
import { exportsAddress, FAST_QUEUE } from '@tasks-lab/13-admission';
import { LAB, readScheduleOptions, SERVER_PROCESS_OPTIONS } from './options.ts';
import {
  describeScheduleState,
  readScheduleState,
  removeExportSchedule,
  upsertExportSchedule,
} from './schedule-registration.ts';
import type { TickMessage, TickOutcome } from './tick.ts';

/** `--remove` or nothing; `--` (pnpm's separator) is skipped; anything else is refused with the usage. */
export function parseScheduleArgs(args: readonly string[]): { remove: boolean } {
  const words = args.filter((a) => a !== '--');
  if (words.length === 0) return { remove: false };
  if (words.length === 1 && words[0] === '--remove') return { remove: true };
  throw new Error(`usage: pnpm schedule [-- --remove]; got ${JSON.stringify(words.slice(0, 3))}`);
}

async function main(): Promise<void> {
  const { remove } = parseScheduleArgs(process.argv.slice(2));
  const settings = SERVER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  const timings = readScheduleOptions();
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  // The signals write slots into this database: its tables must exist before the first one.
  await migrateLab(LAB, { database: settings.database });
  const address = exportsAddress(FAST_QUEUE, settings.queuePrefix);
  const queue = await openQueue<TickMessage, TickOutcome>(address);
  const where = `${address.prefix}:${address.queueName}`;
  try {
    if (remove) {
      const removed = await removeExportSchedule(queue, timings.scheduleId);
      console.log(
        removed
          ? `schedule ${timings.scheduleId} removed from ${where} (its pending run with it)`
          : `no schedule ${timings.scheduleId} on ${where}: nothing removed`,
      );
      return;
    }
    await upsertExportSchedule(queue, { scheduleId: timings.scheduleId, everyMs: timings.scheduleEveryMs });
    console.log(
      `schedule ${timings.scheduleId} upserted on ${where}; the fast worker runs its signals (\`pnpm worker:fast\`)`,
    );
    console.log(describeScheduleState(await readScheduleState(queue, timings.scheduleId)));
  } finally {
    await queue.close();
  }
}

runMain(import.meta.url, main);
