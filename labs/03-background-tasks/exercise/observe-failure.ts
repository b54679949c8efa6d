// Try it yourself (lesson 03): a small task tracker, the core of the TaskRegistry.
// A task started without `await` belongs to nobody unless something keeps it and
// observes how it ends. Fill in what happens when the work rejects, and when it settles.
// Check your answer with `pnpm -w lab 03 --exercise`.
import type { JobStore } from '@tasks-lab/01-state-machine';

export interface TrackedFailure {
  jobId: string;
  message: string;
}

export class TaskTracker {
  /** Strong references to the tasks that have not settled yet. */
  readonly running = new Set<Promise<void>>();
  readonly failures: TrackedFailure[] = [];

  constructor(
    readonly store: JobStore,
    readonly log: (line: string) => void = console.error,
  ) {}

  /** Starts `work` for the job; the returned promise never rejects. */
  start(jobId: string, work: () => Promise<unknown>): Promise<void> {
    const task: Promise<void> = work()
      .then(
        () => undefined,
        async (error: unknown) => {
          // TODO: record { jobId, message } in this.failures, log a line naming the job id,
          // and move the job to 'failed' with the message as its error (the store is async:
          // await the transition, so the task settles only once the job says failed). Do not rethrow.
          void error;
        },
      )
      .finally(() => {
        // TODO: remove this task from this.running, so nothing keeps a settled task.
      });
    this.running.add(task);
    return task;
  }
}
