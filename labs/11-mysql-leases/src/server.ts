// `pnpm start`: lesson 11's API as a real process (PORT defaults to 8000). One pool and
// one BullMQ queue per process, opened at start and closed on SIGTERM/Ctrl-C after the
// HTTP server stops taking requests.
import type { Express } from 'express';
import type { Pool } from 'mysql2/promise';
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { idempotent, onShutdown, runMain, SECOND, type HttpTimeouts } from '@tasks-lab/lab-kit';
import { listen, type RunningServer } from '@tasks-lab/01-state-machine';
import { openQueue, type ExportJobName } from '@tasks-lab/08-broker-worker';
import { createApp } from './app.ts';
import { LAB, openJobsDatabase } from './database.ts';
import { describeTimings, readLeaseOptions } from './options.ts';
import { SERVER_PROCESS_OPTIONS } from './options.ts';
import { exportsAddress, wakeWorker, type DeliveryOutcome, type WakeUpMessage, type WakeUpQueue } from './queue.ts';

export const SHUTDOWN_GRACE_MS = 5 * SECOND;

/** A lab's startServer: the lab's app, served on 127.0.0.1:`port` (0: a free port). */
export type StartServer<O> = (
  port: number,
  options: O,
  /** @defaultValue createApp(options) (the can-fail fixtures pass broken apps) */
  app?: Express,
  /** Lesson 01's request and header timeouts (a JSON 408 when one fires). @defaultValue from the environment (HTTP_REQUEST_TIMEOUT_MS, ...), else 10 s and 5 s */
  timeouts?: Partial<HttpTimeouts>,
) => Promise<RunningServer>;

/** The startServer of a lab whose app `createApp` builds (labs 11 to 16 each have one). The caller owns the services the options carry. */
export function serverOf<O>(createApp: (options: O) => Express): StartServer<O> {
  return (port, options, app = createApp(options), timeouts = {}) => listen(app, port, timeouts);
}

/** Serves lesson 11's app; the caller owns the pool and the queue. */
export const startServer = serverOf(createApp);

/** The pool and the queue a server process opens once. */
export interface ApiServices {
  pool: Pool;
  queue: WakeUpQueue;
  /** Closes the queue, then the pool. Idempotent. */
  close(): Promise<void>;
}

export async function openApiServices(options: { database: string; queueName: string }): Promise<ApiServices> {
  const pool = await openJobsDatabase({ database: options.database });
  let queue: WakeUpQueue;
  try {
    queue = await openQueue<WakeUpMessage, DeliveryOutcome, ExportJobName>(exportsAddress(options.queueName));
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  return {
    pool,
    queue,
    close: idempotent(async () => {
      await queue.close();
      await pool.end();
    }),
  };
}

/** What an API process opens once at start-up and closes at its stop. */
export interface ProcessServices {
  close(): Promise<void>;
}

/** The steps that differ from one lab's API process to the next; runApiProcess does the rest. */
export interface ApiProcessSteps<S extends ProcessServices> {
  /** Whose migrations to apply (a later lab passes its own). */
  lab: string;
  database: string;
  /** Opens the process's services once (lesson 11: the pool and the queue). */
  open(): Promise<S>;
  /** Starts the HTTP server on them. */
  serve(services: S): Promise<RunningServer>;
  /** The one line that says the process is ready, and with what. */
  readyLine(running: RunningServer): string;
  /** @defaultValue SHUTDOWN_GRACE_MS (5 s) */
  graceMs?: number;
}

/**
 * An API process's life, the same from lesson 11 on: the labs' services (ensureInfra), the lab's
 * migrations, the process's own services, the server, and on SIGTERM or Ctrl-C a clean stop: the
 * server first, so that no request in flight finds a closed pool, then the services. The ready
 * line comes last, once the stop is in place: a test may send SIGTERM as soon as it reads it.
 */
export async function runApiProcess<S extends ProcessServices>(steps: ApiProcessSteps<S>): Promise<void> {
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  // Safe from every process at start-up: a named lock serialises it, applied files are skipped.
  await migrateLab(steps.lab, { database: steps.database });
  const services = await steps.open();
  const running = await steps.serve(services).catch(async (err: unknown) => {
    await services.close();
    throw err;
  });
  onShutdown(
    idempotent(async () => {
      await running.close();
      await services.close();
    }),
    { graceMs: steps.graceMs ?? SHUTDOWN_GRACE_MS },
  );
  console.log(steps.readyLine(running));
}

async function main(): Promise<void> {
  const settings = SERVER_PROCESS_OPTIONS.read();
  const lease = readLeaseOptions();
  await runApiProcess({
    lab: LAB,
    database: settings.database,
    open: () => openApiServices(settings),
    serve: (services) =>
      startServer(settings.port, {
        pool: services.pool,
        wake: (jobId) => wakeWorker(services.queue, jobId),
        deadlineMs: lease.deadlineMs,
      }),
    readyLine: (running) =>
      `listening on ${running.url}: queue ${settings.queueName}, database ${settings.database}, ${describeTimings(lease)}`,
  });
}

runMain(import.meta.url, main);
