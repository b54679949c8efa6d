// `pnpm start`: lesson 15's API as a real process (PORT defaults to 8000): lesson 14's (lesson
// 13's admission, lesson 12's pool and nudge client), on lab 15's database, with POST
// /exports/:id/cancel and POST /exports/:id/replay.
//
//   pnpm start
//   curl -X POST localhost:8000/exports/<id>/cancel       202 cancel-requested, then already-requested
//   curl -X POST localhost:8000/exports/<id>/replay       202 + Location of the new job (a failed job only)
import { runMain } from '@tasks-lab/lab-kit';
import { serverOf } from '@tasks-lab/11-mysql-leases';
import { SHUTDOWN_GRACE_MS } from '@tasks-lab/12-outbox';
import { runServerProcess } from '@tasks-lab/13-admission';
import { createApp } from './app.ts';
import { describeTimings, LAB, readRecoveryOptions, SERVER_PROCESS_OPTIONS } from './options.ts';

export { SHUTDOWN_GRACE_MS };

/** Serves lesson 15's app (lesson 11's serverOf); the caller owns the services. */
export const startServer = serverOf(createApp);

async function main(): Promise<void> {
  const settings = SERVER_PROCESS_OPTIONS.read();
  await runServerProcess({
    lab: LAB,
    database: settings.database,
    port: settings.port,
    options: readRecoveryOptions(),
    createApp,
    describe: describeTimings,
  });
}

runMain(import.meta.url, main);
