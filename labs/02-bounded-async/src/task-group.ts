// Node has no asyncio.TaskGroup. This is the small piece of it the lesson needs,
// built from an AbortController and Promise.allSettled:
//   - every task receives the same AbortSignal;
//   - the first task to fail aborts that signal, which asks the others to stop;
//   - the group settles only after EVERY task has settled, so nothing is left running
//     with nobody awaiting it;
//   - then it rejects with the first failure (TaskGroup raises an ExceptionGroup instead).
//
// Why not `await Promise.all(tasks)`? Promise.all rejects at the first failure and
// returns at once, while the other tasks are still running their clean-up (or their
// reads). Those orphaned tasks can still write results or log after the caller has
// already reported the batch as failed.

/** A task of the group: it must stop when `signal` fires. */
export type GroupTask = (signal: AbortSignal) => Promise<void>;

/**
 * Runs `tasks` together and settles when all of them have settled. `parent` lets a
 * caller stop the whole group (the batch deadline does).
 */
export async function runTaskGroup(tasks: readonly GroupTask[], parent?: AbortSignal): Promise<void> {
  const group = new AbortController();
  const signal = parent ? AbortSignal.any([group.signal, parent]) : group.signal;

  const running = tasks.map(async (task) => {
    try {
      await task(signal);
    } catch (err) {
      // The first failure is the cause; errors seen after the abort are its consequences.
      if (!signal.aborted) group.abort(err);
      throw err;
    }
  });

  await Promise.allSettled(running);
  if (signal.aborted) throw signal.reason;
}
