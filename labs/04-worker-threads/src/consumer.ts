// What runs inside each consumer thread: ask the main thread for an id, do the slow
// work with no lock held, then take the lock only to bump a counter. The entry point
// is consumer-thread.ts; this module holds the logic so tests can start a deliberately
// broken variant (a different `handleJob`) with the same loop.
import { threadId, type MessagePort } from 'node:worker_threads';
import { COUNTER_CELLS, incrementCell } from './counters.ts';
import type { ConsumerSetup, FromConsumer, ToConsumer, WorkSpan } from './messages.ts';
import { Mutex } from './mutex.ts';
import { pauseThread, wallClockMs } from './thread-time.ts';

/** Everything a job handler may touch. `cells` and `mutex` are shared with the other threads. */
export interface ConsumerContext {
  setup: ConsumerSetup;
  cells: Int32Array;
  mutex: Mutex;
  send: (message: FromConsumer) => void;
}

export type JobHandler = (id: number, context: ConsumerContext) => WorkSpan;

/**
 * The simulated blocking read of one product: the thread sleeps `workMs`, then the
 * read either returns or throws for a bad record.
 */
export function readProductBlocking(id: number, setup: ConsumerSetup): void {
  pauseThread(setup.workMs);
  if (setup.failingIds.includes(id)) {
    throw new Error(`product ${id} has a bad record (simulated failure)`);
  }
}

/** The lesson's handler: slow work outside the lock, a short critical section, every failure reported. */
export const handleJob: JobHandler = (id, context) => {
  const startedAt = wallClockMs();
  let failure: Error | undefined;
  try {
    readProductBlocking(id, context.setup); // slow: no lock held here
  } catch (err) {
    failure = err instanceof Error ? err : new Error(String(err));
  }
  const endedAt = wallClockMs();
  const lockHeldMs = timeLocked(context.mutex, () => {
    // The critical section: one counter, a few nanoseconds.
    incrementCell(context.cells, failure ? COUNTER_CELLS.failed : COUNTER_CELLS.done);
  });
  // Posting is outside the lock too: nothing else needs to wait for it.
  if (failure) context.send({ type: 'failed', id, message: failure.message });
  return { threadId, id, startedAt, endedAt, lockHeldMs };
};

/** Runs `criticalSection` under the lock and says how long the lock was held, in ms. */
export function timeLocked(mutex: Mutex, criticalSection: () => void): number {
  return mutex.withLock(() => {
    const since = performance.now();
    criticalSection();
    return performance.now() - since;
  });
}

/**
 * The consumer loop. Each job ends with a new 'ready', whatever happened, like
 * Python's task_done() in a finally block: if a failure skipped it, the main thread
 * would wait for this thread forever. On 'stop' the thread closes its port; with
 * nothing left to do, it exits with code 0.
 */
export function startConsumer(port: MessagePort, setup: ConsumerSetup, handle: JobHandler = handleJob): void {
  const cells = new Int32Array(setup.counters);
  const context: ConsumerContext = {
    setup,
    cells,
    mutex: new Mutex(cells, COUNTER_CELLS.lock),
    send: (message) => port.postMessage(message),
  };
  port.on('message', (message: ToConsumer) => {
    if (message.type === 'stop') {
      port.close();
      return;
    }
    try {
      context.send({ type: 'worked', span: handle(message.id, context) });
    } finally {
      context.send({ type: 'ready' });
    }
  });
  context.send({ type: 'ready' });
}
