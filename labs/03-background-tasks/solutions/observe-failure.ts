// Try it yourself (lesson 03): a small task tracker, the core of the TaskRegistry.
// A task started without `await` belongs to nobody unless something keeps it and
// observes how it ends. Fill in what happens when the work rejects, and when it settles.
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
          const message = error instanceof Error ? error.message : String(error);
          this.failures.push({ jobId, message });
          this.log(`job ${jobId} failed: ${message}`);
          await this.store.transition(jobId, 'failed', { error: message });
        },
      )
      .finally(() => {
        this.running.delete(task);
      });
    this.running.add(task);
    return task;
  }
}
