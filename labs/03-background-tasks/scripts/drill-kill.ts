// The fault drill, by hand: `pnpm drill:kill`.
// Starts the server with a slow export (30 s), submits one, kills the server with
// SIGKILL while the export runs (no shutdown code runs), starts a new server, and
// asks for the old job id: 404. Work started inside the API process dies with it.
// The crash comes from outside, the way `kill -9` or a power cut would: no fault point
// inside the server is needed, because the lesson is what the server did NOT do before.
import { runMain, waitFor, withResources, type Exit } from '@tasks-lab/lab-kit';
import { launchLabServer, readJob, submitBackgroundExport, type ServerProcess } from './lab-server.ts';

/** Long enough that the export is certainly still running when the kill comes. */
export const SLOW_EXPORT_WORK_MS = 30_000;

export interface KillDrillEvidence {
  jobId: string;
  /** The job's status on the first server just before the kill. */
  statusBeforeKill: string;
  /** How the first server ended: signal SIGKILL when the drill worked. */
  exit: Exit;
  /** GET of the old id on the restarted server. */
  httpStatusAfterRestart: number;
}

export interface KillDrillOptions {
  /** Which server to run (a can-fail test passes one that keeps jobs in a file). */
  server?: ServerProcess;
  /** Aborts the drill and kills its processes (a check's time limit). */
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export function runKillDrill(options: KillDrillOptions = {}): Promise<KillDrillEvidence> {
  const log = options.log ?? (() => {});
  const env = { EXPORT_WORK_MS: String(SLOW_EXPORT_WORK_MS) };
  return withResources(options.signal, async (res) => {
    const { signal } = res;
    const first = await launchLabServer(res, options.server, env);
    const submitted = await submitBackgroundExport(first.url, [1, 2], signal);
    const jobId = submitted.body.id;
    log(`submitted job ${jobId} to pid ${first.process.pid} (${submitted.status})`);
    const statusBeforeKill = await waitFor('the export to be running', async () => {
      const { body } = await readJob(first.url, jobId, signal);
      return body.status === 'running' && body.status;
    });
    log(`job ${jobId} is ${statusBeforeKill}; sending SIGKILL`);
    const exit = await first.process.kill('SIGKILL');

    // The replacement runs with the same settings, so only the lost memory differs.
    const second = await launchLabServer(res, options.server, env);
    const { status } = await readJob(second.url, jobId, signal);
    log(`restarted as pid ${second.process.pid}; GET /exports/${jobId} -> ${status}`);
    await second.process.stop();
    return { jobId, statusBeforeKill, exit, httpStatusAfterRestart: status };
  });
}

runMain(import.meta.url, async () => {
  const result = await runKillDrill({ log: (line) => console.log(line) });
  const lost = result.httpStatusAfterRestart === 404;
  console.log(lost ? 'the job is gone: nothing brought it back after the restart' : 'unexpected: the job survived');
  return lost ? 0 : 1;
});
