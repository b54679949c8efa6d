// The fault drill, by hand: `pnpm drill:kill`.
// Starts the server with a slow export (30 s), submits one, kills the server with
// SIGKILL while the export runs (no shutdown code runs), starts a new server, and
// asks for the old job id: 404. Work started inside the API process dies with it.
import { pathToFileURL } from 'node:url';
import { waitFor } from '@tasks-lab/lab-kit';
import { readJob, SERVER_SCRIPT, startLabServer, submitBackgroundExport } from './lab-server.ts';

/** Long enough that the export is certainly still running when the kill comes. */
export const SLOW_EXPORT_WORK_MS = 30_000;

export interface KillDrillResult {
  jobId: string;
  statusBeforeKill: string;
  killedBy: string;
  httpStatusAfterRestart: number;
}

export async function runKillDrill(serverScript = SERVER_SCRIPT, log: (line: string) => void = () => {}): Promise<KillDrillResult> {
  const env = { EXPORT_WORK_MS: String(SLOW_EXPORT_WORK_MS) };
  const first = await startLabServer(serverScript, env);
  let jobId: string;
  let statusBeforeKill: string;
  let killedBy: string;
  try {
    const submitted = await submitBackgroundExport(first.url, [1, 2]);
    jobId = submitted.body.id;
    log(`submitted job ${jobId} to pid ${first.process.pid} (${submitted.status})`);
    statusBeforeKill = await waitFor('the export to be running', async () => {
      const { body } = await readJob(first.url, jobId);
      return body.status === 'running' && body.status;
    });
    log(`job ${jobId} is ${statusBeforeKill}; sending SIGKILL`);
  } finally {
    const exit = await first.process.kill('SIGKILL');
    killedBy = exit.signal ?? `exit code ${exit.code}`;
  }

  const second = await startLabServer(serverScript, env);
  try {
    const { status } = await readJob(second.url, jobId);
    log(`restarted as pid ${second.process.pid}; GET /exports/${jobId} -> ${status}`);
    return { jobId, statusBeforeKill, killedBy, httpStatusAfterRestart: status };
  } finally {
    await second.process.kill('SIGKILL');
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runKillDrill(SERVER_SCRIPT, (line) => console.log(line))
    .then((result) => {
      const lost = result.httpStatusAfterRestart === 404;
      console.log(lost ? 'the job is gone: nothing brought it back after the restart' : 'unexpected: the job survived');
      process.exitCode = lost ? 0 : 1;
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
