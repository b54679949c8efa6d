// `pnpm start`: lesson 15's API as a real process (PORT defaults to 8000): lesson 14's (lesson
// 13's admission, lesson 12's pool and nudge client), on lab 15's database, with POST
// /exports/:id/cancel and POST /exports/:id/replay.
//
//   pnpm start
//   curl -X POST localhost:8000/exports/<id>/cancel       202 cancel-requested, then already-requested
//   curl -X POST localhost:8000/exports/<id>/replay       202 + Location of the new job (a failed job only)
import type { Express } from 'express';
import { runMain, type HttpTimeouts } from '@tasks-lab/lab-kit';
import { listen, type RunningServer } from '@tasks-lab/01-state-machine';
import { SHUTDOWN_GRACE_MS } from '@tasks-lab/12-outbox';
import { runServerProcess } from '@tasks-lab/13-admission';
import { createApp, type AppOptions } from './app.ts';
import { describeTimings, LAB, readRecoveryOptions, SERVER_PROCESS_OPTIONS } from './options.ts';

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
    options: readRecoveryOptions(),
    createApp,
    describe: describeTimings,
  });
}

runMain(import.meta.url, main);
