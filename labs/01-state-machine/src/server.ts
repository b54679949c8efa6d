// Starts the lesson 01 API as a real process: `pnpm start` (PORT defaults to 8000).
// Tests and the drill start it with PORT=0 and read the chosen port from the first line.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createApp, type AppOptions } from './app.ts';

export interface RunningServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export function startServer(port: number, options: AppOptions = {}): Promise<RunningServer> {
  const { app } = createApp(options);
  return new Promise((resolve, reject) => {
    const server = app.listen(port, '127.0.0.1', (err?: Error) => {
      if (err) return reject(err);
      const { port: actual } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${actual}`,
        server,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

async function main() {
  const port = Number(process.env.PORT ?? 8000);
  const running = await startServer(port);
  const stop = async () => {
    await running.close();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // Announce only once the signal handlers are in place: a test that sends SIGTERM
  // as soon as it reads this line must reach `stop`, not Node's default (exit at once).
  console.log(`listening on ${running.url} (API docs: ${running.url}/docs)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
