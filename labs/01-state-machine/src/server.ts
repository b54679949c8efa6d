// Starts the lesson 01 API as a real process: `pnpm start` (PORT defaults to 8000).
// Tests and the drill start it with PORT=0 and read the chosen port from the first line.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { idempotent, onShutdown, runMain, SECOND } from '@tasks-lab/lab-kit';
import { createApp, type AppOptions } from './app.ts';
import { SERVER_OPTIONS } from './options.ts';

/** An HTTP server with no long requests closes in well under a second; this is plenty. */
export const SHUTDOWN_GRACE_MS = 5 * SECOND;

export interface RunningServer {
  url: string;
  server: Server;
  /** Stops accepting connections and resolves once open ones are done. Safe to call twice. */
  close(): Promise<void>;
}

export function startServer(port: number, options: AppOptions = {}): Promise<RunningServer> {
  return listen(createApp(options).app, port);
}

/** Serves any app on 127.0.0.1:`port` (0: a free port); later labs serve theirs with it. */
export function listen(app: Express, port: number): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, '127.0.0.1', (err?: Error) => {
      if (err) return reject(err);
      const { port: actual } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${actual}`,
        server,
        close: idempotent(() => new Promise<void>((done) => server.close(() => done()))),
      });
    });
  });
}

async function main(): Promise<void> {
  const { port } = SERVER_OPTIONS.read();
  const running = await startServer(port);
  onShutdown(running.close, { graceMs: SHUTDOWN_GRACE_MS });
  // Announce only once the shutdown handler is in place: a test that sends SIGTERM
  // as soon as it reads this line must reach close(), not Node's default (exit at once).
  console.log(`listening on ${running.url} (API docs: ${running.url}/docs)`);
}

runMain(import.meta.url, main);
