// `pnpm start`: lesson 14's API as a real process (PORT defaults to 8000): lesson 13's
// (lesson 12's services: one pool, one Redis client for the nudges; lesson 13's admission
// rules), on lab 14's database, with POST /schedule-slots.
//
//   pnpm start                                  the course's limit (100)
//   ADMISSION_LIMIT=1 pnpm start                a full service: a taken slot still answers 200, a new one 503
//
// The periodic signal is not registered here: `pnpm schedule` does it (one Job Scheduler,
// upserted by id), and the fast worker handles its runs.
import type { Express } from 'express';
import { runMain, type HttpTimeouts } from '@tasks-lab/lab-kit';
import { listen, type RunningServer } from '@tasks-lab/01-state-machine';
import { SHUTDOWN_GRACE_MS } from '@tasks-lab/12-outbox';
import { runServerProcess } from '@tasks-lab/13-admission';
import { createApp, type AppOptions } from './app.ts';
import { describeTimings, LAB, readScheduleOptions, SERVER_PROCESS_OPTIONS } from './options.ts';

export { SHUTDOWN_GRACE_MS };

/** Serves the app on 127.0.0.1:`port` (0: a free port). The caller owns the pool and the Redis client. */
export function startServer(
  port: number,
  options: AppOptions,
  app: Express = createApp(options),
  /** Lesson 01's request and header timeouts (a JSON 408 when one fires). @defaultValue from the environment (HTTP_REQUEST_TIMEOUT_MS, ...), else 10 s and 5 s */
  timeouts: Partial<HttpTimeouts> = {},
): Promise<RunningServer> {
  return listen(app, port, timeouts);
}

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
