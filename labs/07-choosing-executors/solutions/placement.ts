// Try it yourself (lesson 07): "a synchronous SDK call takes 3 s and must still
// complete if the API restarts". Where does it run? Placement has two axes that
// combine: how the work is delivered (directly, or through a task queue that outlives
// the API) and what runs it once it arrives (event loop, worker thread, process).
import type { Delivery, Executor } from '../src/decision-record.ts';

export interface WorkTraits {
  /** What the work spends its time on. */
  waitsOn: 'awaitable-io' | 'blocking-call' | 'cpu';
  /** Must the work still finish when the API process stops or restarts? */
  mustSurviveRestart: boolean;
}

/** What a placement still needs so that a slow, lost or repeated run does no harm. */
export type Safeguard = 'timeout' | 'idempotency-key' | 'durable-job-state';

export interface Placement {
  delivery: Delivery;
  executor: Executor;
  safeguards: Safeguard[];
}

/** Where the work runs once it has arrived: the decision record's first three rows. */
export function chooseExecutor(waitsOn: WorkTraits['waitsOn']): Executor {
  switch (waitsOn) {
    case 'awaitable-io':
      return 'event-loop';
    case 'blocking-call':
      return 'worker-thread';
    case 'cpu':
      return 'separate-process';
  }
}

/** How the work reaches its executor. */
export function chooseDelivery(work: WorkTraits): Delivery {
  // Only a queue outside the API process still holds the job after that process dies;
  // more threads or a bigger pool inside it would die with it.
  return work.mustSurviveRestart ? 'task-queue' : 'direct';
}

export function requiredSafeguards(work: WorkTraits, delivery: Delivery): Safeguard[] {
  const safeguards: Safeguard[] = [];
  // Anything that waits on something outside needs a bound on the wait.
  if (work.waitsOn !== 'cpu') safeguards.push('timeout');
  if (delivery === 'task-queue') {
    // A queue delivers at least once, so a second run must find the first one's work.
    safeguards.push('idempotency-key');
    // After a restart the job's state must be readable from somewhere other than memory.
    safeguards.push('durable-job-state');
  }
  return safeguards;
}

export function choosePlacement(work: WorkTraits): Placement {
  const executor = chooseExecutor(work.waitsOn);
  const delivery = chooseDelivery(work);
  return { delivery, executor, safeguards: requiredSafeguards(work, delivery) };
}
