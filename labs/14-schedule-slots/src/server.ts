// `pnpm start`: lesson 14's API as a real process (PORT defaults to 8000): lesson 13's
// (lesson 12's services: one pool, one Redis client for the nudges; lesson 13's admission
// rules), on lab 14's database, with POST /schedule-slots.
//
//   pnpm start                                  the course's limit (100)
//   ADMISSION_LIMIT=1 pnpm start                a full service: a taken slot still answers 200, a new one 503
//
// The periodic signal is not registered here: `pnpm schedule` does it (one Job Scheduler,
// upserted by id), and the fast worker handles its runs.
import { runMain } from '@tasks-lab/lab-kit';
import { serverOf } from '@tasks-lab/11-mysql-leases';
import { SHUTDOWN_GRACE_MS } from '@tasks-lab/12-outbox';
import { runServerProcess } from '@tasks-lab/13-admission';
import { createApp } from './app.ts';
import { describeTimings, LAB, readScheduleOptions, SERVER_PROCESS_OPTIONS } from './options.ts';

export { SHUTDOWN_GRACE_MS };

/** Serves lesson 14's app (lesson 11's serverOf); the caller owns the services. */
export const startServer = serverOf(createApp);

async function main(): Promise<void> {
  const settings = SERVER_PROCESS_OPTIONS.read();
  await runServerProcess({
    lab: LAB,
    database: settings.database,
    port: settings.port,
    options: readScheduleOptions(),
    createApp,
    describe: describeTimings,
  });
}

runMain(import.meta.url, main);
