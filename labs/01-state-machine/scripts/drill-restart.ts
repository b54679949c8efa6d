// Fault drill: a job accepted by one server process is gone after that process dies.
// Run it by hand with `pnpm drill:restart`; verify runs the same function as a check.
//   1. start the API, submit a job, read it back (200, queued)
//   2. SIGKILL the process: no shutdown hook, nothing saved
//   3. start a new process and ask for the same id: 404
import { pathToFileURL } from 'node:url';
import type { Exit } from '@tasks-lab/lab-kit';
import { postJson, request, startApiProcess, type ApiProcessOptions, type HttpAnswer } from './api-process.ts';

export interface RestartDrillResult {
  jobId: string;
  firstPid: number;
  /** GET of the job on the process that accepted it. */
  statusBeforeKill: number;
  exit: Exit;
  secondPid: number;
  /** GET of the same job on the new process. */
  afterRestart: HttpAnswer;
  /** A fresh submit on the new process, to show it works and only the old job is missing. */
  newSubmitStatus: number;
}

export async function runRestartDrill(
  options: ApiProcessOptions = {},
  log: (line: string) => void = () => {},
): Promise<RestartDrillResult> {
  // Step 1: one process accepts a job.
  const first = await startApiProcess(options);
  let jobId: string;
  let statusBeforeKill: number;
  let exit: Exit;
  try {
    log(`started API process ${first.pid} on ${first.url}`);
    const submitted = await postJson(`${first.url}/exports`, JSON.stringify({ product_ids: [1, 2] }));
    jobId = (submitted.json as { id: string }).id;
    const before = await request(`${first.url}/exports/${jobId}`);
    statusBeforeKill = before.status;
    log(`submitted job ${jobId}: POST ${submitted.status}, GET ${before.status} ${before.text}`);
  } finally {
    // Step 2: kill it without warning (also when step 1 failed, so no process is left behind).
    exit = await first.kill();
  }
  log(`sent SIGKILL to process ${first.pid}: it exited with signal ${exit.signal}`);

  // Step 3: a new process, asked for the old id.
  const second = await startApiProcess(options);
  try {
    log(`started a new API process ${second.pid} on ${second.url}`);
    const afterRestart = await request(`${second.url}/exports/${jobId}`);
    log(`GET /exports/${jobId} -> ${afterRestart.status} ${afterRestart.text}`);
    const fresh = await postJson(`${second.url}/exports`, JSON.stringify({ product_ids: [3] }));
    log(`a new submit on the new process still works: POST ${fresh.status}`);
    return {
      jobId,
      firstPid: first.pid,
      statusBeforeKill,
      exit,
      secondPid: second.pid,
      afterRestart,
      newSubmitStatus: fresh.status,
    };
  } finally {
    await second.kill();
  }
}

async function main() {
  const result = await runRestartDrill({}, (line) => console.log(line));
  if (result.afterRestart.status === 404) {
    console.log('The job is gone: it lived only in the memory of the killed process.');
  } else {
    console.log(`Unexpected: the old job answered ${result.afterRestart.status} after the restart.`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
