// `pnpm start`: lesson 12's API as a real process (PORT defaults to 8000). One pool and
// one Redis client per process, opened at start and closed on SIGTERM/Ctrl-C after the
// HTTP server stops taking requests. The API opens no BullMQ queue any more: the
// publisher (`pnpm publisher`) is the only process that sends to BullMQ.
import type { Pool } from 'mysql2/promise';
import type { Redis } from 'ioredis';
import { idempotent, runMain, SECOND } from '@tasks-lab/lab-kit';
import { runApiProcess, serverOf } from '@tasks-lab/11-mysql-leases';
import { createApp } from './app.ts';
import { openJobsDatabase } from './database.ts';
import { LAB, SERVER_PROCESS_OPTIONS, describeTimings, readOutboxOptions } from './options.ts';
import { openNudgeClient, publishNudge } from './nudge.ts';

export const SHUTDOWN_GRACE_MS = 5 * SECOND;

/** Serves lesson 12's app (lesson 11's serverOf); the caller owns the services. */
export const startServer = serverOf(createApp);

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
