// `pnpm start`: the dashboard server (PORT defaults to 8000; PORT=0 picks a free one
// and the first line says which). It only reads the queues; it never waits on a job.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { ensureInfra } from '@tasks-lab/infra';
import type { Queue } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { brokerConnection, EXPORTS_QUEUE } from './broker.ts';
import { createDashboardApp, DASHBOARD_PATH } from './dashboard.ts';
import { openExportsQueue } from './producer.ts';

export interface DashboardServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export interface DashboardOptions {
  /** @defaultValue 0 (any free port) */
  port?: number;
  /** @defaultValue ["exports"] */
  queueNames?: string[];
  connection?: RedisOptions;
}

export async function startDashboardServer(options: DashboardOptions = {}): Promise<DashboardServer> {
  const connection = options.connection ?? brokerConnection();
  const queues: Queue[] = (options.queueNames ?? [EXPORTS_QUEUE]).map((name) => openExportsQueue(name, connection));
  const app = createDashboardApp(queues);
  const closeQueues = () => Promise.all(queues.map((queue) => queue.close())).then(() => undefined);
  try {
    const server = await listen(app, options.port ?? 0);
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      server,
      close: async () => {
        await new Promise<void>((done) => server.close(() => done()));
        await closeQueues();
      },
    };
  } catch (err) {
    await closeQueues();
    throw err;
  }
}

function listen(app: ReturnType<typeof createDashboardApp>, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(server)));
  });
}

async function main() {
  await ensureInfra({ services: ['redis'], log: (line) => console.log(`[infra] ${line}`) });
  const queueName = process.env.EXPORTS_QUEUE || EXPORTS_QUEUE;
  const running = await startDashboardServer({ port: Number(process.env.PORT ?? 8000), queueNames: [queueName] });
  const stop = async () => {
    await running.close();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  console.log(`dashboard on ${running.url}${DASHBOARD_PATH} (queue: ${queueName})`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
