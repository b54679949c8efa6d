// Step 4 of the lesson, by hand: `pnpm demo:registry`.
// Starts one slow task (30 s) through the registry, then shuts down at once:
// the registry waits the grace period (3 s), cancels the task, waits for its
// cleanup, and reports how many tasks remain (0).
import { setTimeout as delay } from 'node:timers/promises';
import { runMain } from '@tasks-lab/lab-kit';
import { MemoryJobStore } from '@tasks-lab/01-state-machine';
import { runExportJob, TaskRegistry, type ExportWork } from '../src/index.ts';

const SLOW_WORK_MS = 30_000;

const slowExport: ExportWork = async (productIds, signal) => {
  try {
    await delay(SLOW_WORK_MS, undefined, { signal });
    return { rows: productIds.length };
  } finally {
    // Runs when the timer finishes and when the abort rejects it: the task's own cleanup.
    console.log('cleanup');
  }
};

async function main(): Promise<void> {
  const store = new MemoryJobStore();
  // The registry's lines go to stdout with the demo's own, so they stay in order wherever the
  // output goes (its default, stderr, is a second stream that a pipe may deliver out of order).
  const registry = new TaskRegistry(store, { log: (line) => console.log(line) });
  const job = await store.create([1, 2]);
  void registry.start(job.id, (signal) => runExportJob(store, job.id, slowExport, signal));
  await delay(100);
  console.log(`started job ${job.id}; shutting down with ${registry.size} task(s) running`);

  const started = Date.now();
  const report = await registry.shutdown();
  console.log(
    `finished in grace ${report.finishedInGrace}, cancelled ${report.cancelled} after ${Date.now() - started} ms`,
  );
  console.log(`job state ${(await store.require(job.id)).state}`);
  console.log(`remaining ${registry.size}`);
}

runMain(import.meta.url, main);
