// Starts the lesson 03 API as a real process: `pnpm start` (settings in src/options.ts).
// On SIGTERM or SIGINT (Ctrl-C) it stops taking requests, gives running background
// exports a bounded grace period, cancels the rest, and only then exits.
// SIGKILL skips all of that: the fault drill shows what is lost.
import { onShutdown, runMain, SECOND, type HttpTimeouts } from '@tasks-lab/lab-kit';
import { MemoryJobStore, startServer, type JobStore, type RunningServer } from '@tasks-lab/01-state-machine';
import { backgroundExportRoutes } from './app.ts';
import { simulatedExport } from './export-work.ts';
import { BACKGROUND_SERVER_OPTIONS, type BackgroundServerSettings } from './options.ts';
import { TaskRegistry, type ShutdownReport } from './task-registry.ts';

/** Beyond the registry's own bounds, the time the HTTP server gets to close its connections. */
const SERVER_CLOSE_MS = SECOND;

export interface BackgroundServerOptions extends Partial<Omit<BackgroundServerSettings, 'port'>> {
  /** Where jobs are kept. @defaultValue a new MemoryJobStore */
  store?: JobStore;
  log?: (line: string) => void;
  /** Lesson 01's request and header timeouts (a JSON 408 when one fires). @defaultValue from the environment (HTTP_REQUEST_TIMEOUT_MS, ...) or 10 s / 5 s */
  httpTimeouts?: Partial<HttpTimeouts>;
}

export interface RunningBackgroundServer extends RunningServer {
  store: JobStore;
  registry: TaskRegistry;
  /** Stops taking requests, drains the registry (bounded), then closes the server. Safe to call twice. */
  drainAndClose(): Promise<ShutdownReport>;
}

export async function startBackgroundServer(
  port: number,
  options: BackgroundServerOptions = {},
): Promise<RunningBackgroundServer> {
  const store = options.store ?? new MemoryJobStore();
  const registry = new TaskRegistry(store, {
    graceMs: options.shutdownGraceMs,
    cleanupMs: options.cancelCleanupMs,
    log: options.log,
  });
  const work = simulatedExport({ workMs: options.exportWorkMs });
  const running = await startServer(
    port,
    { store, log: options.log, extendRoutes: backgroundExportRoutes({ registry, work }) },
    options.httpTimeouts,
  );
  // Remembered, so a second call (a second signal, a test's clean-up) gets the first one's report.
  let report: Promise<ShutdownReport> | undefined;
  const drainAndClose = () =>
    (report ??= (async () => {
      // Stop accepting first, so no new export can start while we drain.
      const closed = running.close();
      const drained = await registry.shutdown();
      // Idle keep-alive sockets would hold close() open; the work is done, so drop them.
      running.server.closeAllConnections();
      await closed;
      return drained;
    })());
  return { ...running, store, registry, drainAndClose };
}

/** What SIGTERM / SIGINT run: drain, print the report, and fail if work was left running. */
async function drainOnShutdown(running: RunningBackgroundServer, graceMs: number): Promise<void> {
  console.log(`draining ${running.registry.size} background task(s), grace ${graceMs} ms`);
  const report = await running.drainAndClose();
  console.log(
    `shutdown: ${report.finishedInGrace} finished within grace, ${report.cancelled} cancelled, ${report.remaining} remaining`,
  );
  // Work still running at this point is lost with the process: exit code 1 makes that visible.
  if (report.remaining > 0) throw new Error(`${report.remaining} background task(s) still running: their work is lost`);
}

async function main(): Promise<void> {
  const settings = BACKGROUND_SERVER_OPTIONS.read();
  const { port, exportWorkMs, shutdownGraceMs, cancelCleanupMs } = settings;
  const running = await startBackgroundServer(port, settings);
  // The lesson's bounded wait lives in the registry (grace, cancel, clean-up); onShutdown's
  // limit sits just above those bounds, as a last resort if something hangs anyway.
  onShutdown(() => drainOnShutdown(running, shutdownGraceMs), {
    graceMs: shutdownGraceMs + cancelCleanupMs + SERVER_CLOSE_MS,
  });
  // Print only after the handler is in place: whoever waits for this line may signal at once.
  console.log(
    `listening on ${running.url} (pid ${process.pid}, export work ${exportWorkMs} ms, shutdown grace ${shutdownGraceMs} ms)`,
  );
}

runMain(import.meta.url, main);
