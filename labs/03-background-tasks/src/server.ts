// Starts the lesson 03 API as a real process: `pnpm start` (PORT defaults to 8000).
// On SIGTERM or SIGINT (Ctrl-C) it stops taking requests, gives running background
// exports a bounded grace period, cancels the rest, and only then exits.
// SIGKILL skips all of that: the fault drill shows what is lost.
import { pathToFileURL } from 'node:url';
import { startServer, type RunningServer } from '@tasks-lab/02-bounded-async';
import { backgroundExportRoutes } from './app.ts';
import { DEFAULT_EXPORT_WORK_MS, simulatedExport } from './export-work.ts';
import { JobStore } from './store.ts';
import { DEFAULT_SHUTDOWN_GRACE_MS, TaskRegistry, type ShutdownReport } from './task-registry.ts';

export interface BackgroundServerOptions {
  /** How long each simulated export takes. @defaultValue 1000 */
  exportWorkMs?: number;
  /** How long shutdown waits for running exports. @defaultValue 3000 */
  graceMs?: number;
  log?: (line: string) => void;
}

export interface RunningBackgroundServer extends RunningServer {
  store: JobStore;
  registry: TaskRegistry;
  /** Stops taking requests, drains the registry (bounded), then closes the server. */
  drainAndClose(): Promise<ShutdownReport>;
}

export async function startBackgroundServer(
  port: number,
  options: BackgroundServerOptions = {},
): Promise<RunningBackgroundServer> {
  const store = new JobStore();
  const registry = new TaskRegistry(store, { graceMs: options.graceMs, log: options.log });
  const work = simulatedExport({ workMs: options.exportWorkMs });
  const running = await startServer(port, { store, log: options.log, extendRoutes: backgroundExportRoutes({ registry, work }) });
  const drainAndClose = async () => {
    // Stop accepting first, so no new export can start while we drain.
    const closed = running.close();
    const report = await registry.shutdown();
    // Idle keep-alive sockets would hold close() open; the work is done, so drop them.
    running.server.closeAllConnections();
    await closed;
    return report;
  };
  return { ...running, store, registry, drainAndClose };
}

async function main() {
  const port = Number(process.env.PORT ?? 8000);
  const exportWorkMs = Number(process.env.EXPORT_WORK_MS ?? DEFAULT_EXPORT_WORK_MS);
  const graceMs = Number(process.env.SHUTDOWN_GRACE_MS ?? DEFAULT_SHUTDOWN_GRACE_MS);
  const running = await startBackgroundServer(port, { exportWorkMs, graceMs });

  const stop = async (signal: NodeJS.Signals) => {
    console.log(`${signal}: draining ${running.registry.size} background task(s), grace ${graceMs} ms`);
    const report = await running.drainAndClose();
    console.log(
      `shutdown: ${report.finishedInGrace} finished within grace, ${report.cancelled} cancelled, ${report.remaining} remaining`,
    );
    // Work still running at this point is lost; a non-zero code makes that visible.
    process.exit(report.remaining > 0 ? 1 : 0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // Print only after the handlers are in place: whoever waits for this line may signal at once.
  console.log(`listening on ${running.url} (pid ${process.pid}, export work ${exportWorkMs} ms, shutdown grace ${graceMs} ms)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
