// `pnpm start`: the dashboard server (PORT defaults to 8000; PORT=0 picks a free one
// and the first line says which). It only reads the queues; it never waits on a job.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureInfra } from '@tasks-lab/infra';
import {
  createHttpServer,
  HTTP_TIMEOUT_OPTIONS,
  idempotent,
  onShutdown,
  runMain,
  SECOND,
  type HttpTimeouts,
} from '@tasks-lab/lab-kit';
import type { RedisOptions } from 'ioredis';
import { EXPORTS_QUEUE, exportsAddress } from './broker.ts';
import { createDashboardApp, DASHBOARD_PATH, type AnyQueue } from './dashboard.ts';
import { SERVER_OPTIONS } from './options.ts';
import { openQueue } from './queue-layer.ts';

export interface DashboardServer {
  url: string;
  server: Server;
  /** Stops listening, then closes the queues; a second call waits for the first. */
  close(): Promise<void>;
}

export interface DashboardOptions {
  /** @defaultValue 0 (any free port) */
  port?: number;
  /** @defaultValue ["exports"] */
  queueNames?: string[];
  connection?: RedisOptions;
  /**
   * Lesson 01's request and header timeouts: a client that stops half-way gets a JSON 408 and a
   * closed connection. @defaultValue from HTTP_REQUEST_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS and
   * HTTP_KEEP_ALIVE_TIMEOUT_MS, else 10 s, 5 s and 5 s
   */
  httpTimeouts?: Partial<HttpTimeouts>;
}

export async function startDashboardServer(options: DashboardOptions = {}): Promise<DashboardServer> {
  const queues: AnyQueue[] = [];
  const closeQueues = () => Promise.all(queues.map((queue) => queue.close())).then(() => undefined);
  try {
    for (const name of options.queueNames ?? [EXPORTS_QUEUE]) {
      queues.push(await openQueue(exportsAddress(name), { connection: options.connection }));
    }
    const server = await listen(createDashboardApp(queues), options.port ?? 0, options.httpTimeouts);
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      server,
      close: idempotent(async () => {
        await new Promise<void>((done) => server.close(() => done()));
        await closeQueues();
      }),
    };
  } catch (err) {
    await closeQueues();
    throw err;
  }
}

function listen(
  app: ReturnType<typeof createDashboardApp>,
  port: number,
  timeouts: Partial<HttpTimeouts> = {},
): Promise<Server> {
  return new Promise((resolve, reject) => {
    // Inside the promise: a bad timeout value (OptionsError) is a rejection, like a taken port (EADDRINUSE).
    const server = createHttpServer(app, HTTP_TIMEOUT_OPTIONS.read({ overrides: timeouts }));
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

runMain(import.meta.url, async () => {
  const options = SERVER_OPTIONS.read();
  await ensureInfra({ services: ['redis'], log: (line) => console.log(`[infra] ${line}`) });
  const running = await startDashboardServer({ port: options.port, queueNames: [options.queueName] });
  onShutdown(running.close, { graceMs: 5 * SECOND });
  console.log(`dashboard on ${running.url}${DASHBOARD_PATH} (queue: ${options.queueName})`);
});
