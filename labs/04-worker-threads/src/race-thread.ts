// Entry point of one race thread (started by runIncrementRace).
import { parentPort, workerData } from 'node:worker_threads';
import { Mutex } from './mutex.ts';
import { RACE_CELLS, type RaceSetup } from './race.ts';
import { pauseThread } from './thread-time.ts';

const setup = workerData as RaceSetup;
const cells = new Int32Array(setup.cells);
const mutex = new Mutex(cells, RACE_CELLS.lock);

/** One increment, split into a read and a write so another thread can slip in between. */
function increment(): void {
  const seen = Atomics.load(cells, RACE_CELLS.counter);
  pauseThread(setup.pauseMs); // the window: another thread may read the same `seen` now
  Atomics.store(cells, RACE_CELLS.counter, seen + 1);
}

/** Threads boot at different speeds; without a common start, one could finish before the other begins. */
function waitForAllThreads(): void {
  Atomics.add(cells, RACE_CELLS.arrived, 1);
  Atomics.notify(cells, RACE_CELLS.arrived);
  for (;;) {
    const arrived = Atomics.load(cells, RACE_CELLS.arrived);
    if (arrived >= setup.threads) return;
    Atomics.wait(cells, RACE_CELLS.arrived, arrived);
  }
}

if (!parentPort) throw new Error('race-thread.ts runs as a worker thread; start it with runIncrementRace()');
waitForAllThreads();
for (let i = 0; i < setup.incrementsPerThread; i += 1) {
  if (setup.locked) mutex.withLock(increment);
  else increment();
}
