// `pnpm start`: lesson 13's API as a real process (PORT defaults to 8000): lesson 12's
// services (one pool, one Redis client for the nudges), lesson 13's admission rules.
//
//   pnpm start                                  the course's limit (100), no client quota
//   ADMISSION_LIMIT=5 pnpm start                the course's "try it yourself": a limit of 5
//   CLIENT_QUOTA=2 pnpm start                   at most 2 active jobs per Client-Id (429 above)
//   ADMISSION_GATE=count pnpm start             the course's lock-and-count gate
import type { Express } from 'express';
import { runMain } from '@tasks-lab/lab-kit';
import { runApiProcess, serverOf } from '@tasks-lab/11-mysql-leases';
import { openApiServices, publishNudge, SHUTDOWN_GRACE_MS, type ApiServices } from '@tasks-lab/12-outbox';
import { createApp, type AppOptions } from './app.ts';
import {
  describeTimings,
  LAB,
  readAdmissionOptions,
  SERVER_PROCESS_OPTIONS,
  type AdmissionOptionValues,
} from './options.ts';

export { SHUTDOWN_GRACE_MS };

/** Serves lesson 13's app (lesson 11's serverOf); the caller owns the services. */
export const startServer = serverOf(createApp);

export interface ServerProcessSettings<O extends AdmissionOptionValues> {
  /** Whose migrations to apply at start-up (lesson 14 passes its own). */
  lab: string;
  database: string;
  port: number;
  options: O;
  /**
   * The app (lesson 14 adds its routes). It also gets the process's services: lesson 16's
   * /metrics counts BullMQ keys with the same Redis client. @defaultValue lesson 13's createApp
   */
  createApp?: (appOptions: AppOptions, services: ApiServices) => Express;
  /** The ready line's account of the options. @defaultValue lesson 13's describeTimings */
  describe?: (options: O) => string;
}

/** The process: infra, migrations, lesson 12's pool and nudge client, the server, a clean stop on SIGTERM/Ctrl-C. */
export async function runServerProcess<O extends AdmissionOptionValues>(
  settings: ServerProcessSettings<O>,
): Promise<void> {
  const { options } = settings;
  await runApiProcess({
    lab: settings.lab,
    database: settings.database,
    // Lesson 12's pool (on this lab's database) and nudge client.
    open: () => openApiServices({ database: settings.database }),
    serve: (services) => {
      const appOptions: AppOptions = {
        pool: services.pool,
        nudge: () => publishNudge(services.redis, { channel: options.nudgeChannel }),
        rules: options,
        deadlineMs: options.deadlineMs,
      };
      return startServer(settings.port, appOptions, (settings.createApp ?? createApp)(appOptions, services));
    },
    readyLine: (running) =>
      `listening on ${running.url}: database ${settings.database}, ${(settings.describe ?? describeTimings)(options)}`,
  });
}

async function main(): Promise<void> {
  const settings = SERVER_PROCESS_OPTIONS.read();
  await runServerProcess({
    lab: LAB,
    database: settings.database,
    port: settings.port,
    options: readAdmissionOptions(),
  });
}

runMain(import.meta.url, main);
