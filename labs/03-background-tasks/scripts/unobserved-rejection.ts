// What Node does with a promise nobody observes: `pnpm demo:unobserved plain|registry`.
//   plain    starts a failing export and forgets it: about 100 ms later the process
//            crashes (exit code 1) with the error on stderr.
//   registry starts the same export through the TaskRegistry: the failure becomes a
//            failed job and a log line, and the process carries on and exits 0.
import { setTimeout as delay } from 'node:timers/promises';
import { runMain } from '@tasks-lab/lab-kit';
import { MemoryJobStore, type JobStore } from '@tasks-lab/01-state-machine';
import { runExportJob, TaskRegistry, type ExportWork, type TaskRegistryOptions } from '../src/index.ts';

export const DRILL_ERROR_MESSAGE = 'export drill failed';

/** An export that fails after `failAfterMs`, the way a real one might after a bad read. */
export function failingExport(failAfterMs = 100): ExportWork {
  return async (_productIds, signal) => {
    await delay(failAfterMs, undefined, { signal });
    throw new Error(DRILL_ERROR_MESSAGE);
  };
}

/** How long the scenario keeps the process busy after starting the task. */
const STAY_ALIVE_MS = 500;

export type MakeRegistry = (store: JobStore, options: TaskRegistryOptions) => TaskRegistry;

export async function runScenario(
  mode: string,
  makeRegistry: MakeRegistry = (s, o) => new TaskRegistry(s, o),
): Promise<void> {
  const store = new MemoryJobStore();
  const job = await store.create([1, 2]);
  const controller = new AbortController();
  if (mode === 'plain') {
    // Called without await and without .catch(): nobody will ever observe this promise.
    runExportJob(store, job.id, failingExport(), controller.signal);
    console.log(`started job ${job.id} without observing it`);
  } else if (mode === 'registry') {
    const registry = makeRegistry(store, { log: (line) => console.log(line) });
    void registry.start(job.id, (signal) => runExportJob(store, job.id, failingExport(), signal));
    console.log(`started job ${job.id} through the registry`);
    await delay(STAY_ALIVE_MS);
    console.log(`job state ${(await store.require(job.id)).state}, remaining ${registry.size}`);
  } else {
    throw new Error(`unknown mode "${mode}": use plain or registry`);
  }
  await delay(STAY_ALIVE_MS);
  console.log('still alive');
}

runMain(import.meta.url, () => runScenario(process.argv[2] ?? 'plain'));
