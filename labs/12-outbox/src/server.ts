// `pnpm start`: lesson 12's API as a real process (PORT defaults to 8000). One pool and
// one Redis client per process, opened at start and closed on SIGTERM/Ctrl-C after the
// HTTP server stops taking requests. The API opens no BullMQ queue any more: the
// publisher (`pnpm publisher`) is the only process that sends to BullMQ.
import type { Express } from 'express';
import type { Pool } from 'mysql2/promise';
import type { Redis } from 'ioredis';
import { idempotent, runMain, SECOND, type HttpTimeouts } from '@tasks-lab/lab-kit';
import { runApiProcess } from '@tasks-lab/11-mysql-leases';
import { listen, type RunningServer } from '@tasks-lab/01-state-machine';
import { createApp, type AppOptions } from './app.ts';
import { openJobsDatabase } from './database.ts';
import { LAB, SERVER_PROCESS_OPTIONS, describeTimings, readOutboxOptions } from './options.ts';
import { openNudgeClient, publishNudge } from './nudge.ts';

export const SHUTDOWN_GRACE_MS = 5 * SECOND;

/**
 * Serves the app on 127.0.0.1:`port` (0: a free port), with lesson 11's listen. The caller
 * owns the pool and the Redis client. `app` is built from `options` unless given (the
 * can-fail fixtures pass broken ones).
 */
export function startServer(
  port: number,
  options: AppOptions,
  app: Express = createApp(options),
  /** Lesson 01's request and header timeouts (a JSON 408 when one fires). @defaultValue from the environment (HTTP_REQUEST_TIMEOUT_MS, ...), else 10 s and 5 s */
  timeouts: Partial<HttpTimeouts> = {},
): Promise<RunningServer> {
  return listen(app, port, timeouts);
}

/** The pool and the nudge client a server process opens once. */
export interface ApiServices {
  pool: Pool;
  redis: Redis;
  /** Closes the Redis client, then the pool. Idempotent. */
  close(): Promise<void>;
}

export async function openApiServices(options: { database: string }): Promise<ApiServices> {
  const pool = await openJobsDatabase({ database: options.database });
  const redis = openNudgeClient();
  return {
    pool,
    redis,
    close: idempotent(async () => {
      redis.disconnect();
      await pool.end();
    }),
  };
}

async function main(): Promise<void> {
  const settings = SERVER_PROCESS_OPTIONS.read();
  const timings = readOutboxOptions();
  await runApiProcess({
    lab: LAB,
    database: settings.database,
    open: () => openApiServices(settings),
    serve: (services) =>
      startServer(settings.port, {
        pool: services.pool,
        nudge: () => publishNudge(services.redis),
        queueName: settings.queueName,
        deadlineMs: timings.deadlineMs,
      }),
    readyLine: (running) =>
      `listening on ${running.url}: events for queue ${settings.queueName}, database ${settings.database}, nudges on Redis, ${describeTimings(timings)}`,
  });
}

runMain(import.meta.url, main);
