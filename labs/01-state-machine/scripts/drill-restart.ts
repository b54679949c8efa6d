// Fault drill: a job accepted by one server process is gone after that process dies.
// Run it by hand with `pnpm drill:restart`; verify runs the same function as a check.
//   1. start the API, submit a job, read it back (200, queued)
//   2. SIGKILL the process: no shutdown hook, nothing saved
//   3. start a new process and ask for the same id: 404
// The crash comes from outside, the way `kill -9` or a power cut would: no fault point
// inside the server is needed, because the lesson is what the server did NOT do before.
import { runMain, withResources, type Exit } from '@tasks-lab/lab-kit';
import { SHUTDOWN_GRACE_MS } from '../src/server.ts';
import { launchApi, postJson, request, type ApiProcessOptions, type HttpAnswer } from './api-process.ts';

export interface RestartDrillEvidence {
  jobId: string;
  firstPid: number;
  /** GET of the job on the process that accepted it. */
  statusBeforeKill: number;
  /** How the first process ended: SIGKILL, when the drill worked. */
  exit: Exit;
  secondPid: number;
  /** GET of the same job on the new process. */
  afterRestart: HttpAnswer;
  /** A fresh submit on the new process, to show it works and only the old job is missing. */
  newSubmitStatus: number;
}

export interface RestartDrillOptions {
  /** Which server to run (a test passes one that keeps jobs in a file). @defaultValue src/server.ts */
  api?: ApiProcessOptions;
  /** Aborts the drill and kills its processes (a check's time limit). */
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export function runRestartDrill(options: RestartDrillOptions = {}): Promise<RestartDrillEvidence> {
  const log = options.log ?? (() => {});
  return withResources(options.signal, async (res) => {
    const { signal } = res;
    // Step 1: one process accepts a job.
    const first = await launchApi(res, options.api);
    log(`started API process ${first.proc.pid} on ${first.url}`);
    const submitted = await postJson(`${first.url}/exports`, JSON.stringify({ product_ids: [1, 2] }), undefined, {
      signal,
    });
    const jobId = (submitted.json as { id?: unknown } | undefined)?.id;
    if (typeof jobId !== 'string')
      throw new Error(`the submit answered ${submitted.status} with no job id: ${submitted.text.slice(0, 120)}`);
    const before = await request(`${first.url}/exports/${jobId}`, { signal });
    log(`submitted job ${jobId}: POST ${submitted.status}, GET ${before.status} ${before.text}`);

    // Step 2: kill it without warning.
    const exit = await first.proc.kill();
    log(`sent SIGKILL to process ${first.proc.pid}: it exited with signal ${exit.signal}`);

    // Step 3: a new process, asked for the old id.
    const second = await launchApi(res, options.api);
    log(`started a new API process ${second.proc.pid} on ${second.url}`);
    const afterRestart = await request(`${second.url}/exports/${jobId}`, { signal });
    log(`GET /exports/${jobId} -> ${afterRestart.status} ${afterRestart.text}`);
    const fresh = await postJson(`${second.url}/exports`, JSON.stringify({ product_ids: [3] }), undefined, { signal });
    log(`a new submit on the new process still works: POST ${fresh.status}`);
    await second.proc.stop(SHUTDOWN_GRACE_MS);

    return {
      jobId,
      firstPid: first.proc.pid,
      statusBeforeKill: before.status,
      exit,
      secondPid: second.proc.pid,
      afterRestart,
      newSubmitStatus: fresh.status,
    };
  });
}

runMain(import.meta.url, async () => {
  const result = await runRestartDrill({ log: (line) => console.log(line) });
  if (result.afterRestart.status === 404) {
    console.log('The job is gone: it lived only in the memory of the killed process.');
    return 0;
  }
  console.log(`Unexpected: the old job answered ${result.afterRestart.status} after the restart.`);
  return 1;
});
