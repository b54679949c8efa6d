// Starts the lesson 01 API as a real process: `pnpm start` (PORT defaults to 8000).
// Tests and the drill start it with PORT=0 and read the chosen port from the first line.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import {
  createHttpServer,
  HTTP_TIMEOUT_OPTIONS,
  idempotent,
  onShutdown,
  runMain,
  SECOND,
  type HttpTimeouts,
} from '@tasks-lab/lab-kit';
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

/** `timeouts`: see listen. */
export function startServer(
  port: number,
  options: AppOptions = {},
  timeouts: Partial<HttpTimeouts> = {},
): Promise<RunningServer> {
  return listen(createApp(options).app, port, timeouts);
}

/**
 * Serves any app on 127.0.0.1:`port` (0: a free port); later labs serve theirs with it.
 * A client gets `timeouts.headersTimeoutMs` for a request's headers and `requestTimeoutMs`
 * for all of it, else a JSON 408 and a closed connection (lab-kit's http-timeouts.ts says
 * what Node does by itself: a bare 408 after five minutes). Values not given come from
 * HTTP_REQUEST_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS and HTTP_KEEP_ALIVE_TIMEOUT_MS, or the defaults.
 */
export function listen(app: Express, port: number, timeouts: Partial<HttpTimeouts> = {}): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    // Inside the promise: a bad timeout value (OptionsError) is a rejection, like a taken port.
    const server = createHttpServer(app, HTTP_TIMEOUT_OPTIONS.read({ overrides: timeouts }));
    // A port already taken (EADDRINUSE) arrives as 'error' instead of the listening callback.
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
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
