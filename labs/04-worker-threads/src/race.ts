// The race the lock prevents, made visible. Several threads add 1 to one shared
// counter many times, each increment as read -> pause -> write. Without the lock two
// threads read the same value, both write value + 1, and one update is lost. With the
// lock the read and the write of one increment can no longer interleave with another's.
import { INCREMENT_RACE_DEFAULTS } from './options.ts';
import { startTsThread } from './ts-thread.ts';

export const RACE_CELLS = {
  lock: 0,
  counter: 1,
  /** A start barrier: threads count themselves in here and wait until all have arrived. */
  arrived: 2,
} as const;

export interface IncrementRaceOptions {
  threads?: number;
  incrementsPerThread?: number;
  pauseMs?: number;
  /** Guard each increment with the Mutex (true) or not (false). */
  locked: boolean;
}

/** What each race thread receives as workerData. */
export interface RaceSetup {
  cells: SharedArrayBuffer;
  threads: number;
  incrementsPerThread: number;
  pauseMs: number;
  locked: boolean;
}

export interface IncrementRaceReport {
  locked: boolean;
  threads: number;
  expected: number;
  counter: number;
  lost: number;
  exitCodes: number[];
  elapsedMs: number;
}

const RACE_ENTRY = new URL('./race-thread.ts', import.meta.url);

export async function runIncrementRace(options: IncrementRaceOptions): Promise<IncrementRaceReport> {
  const setup: RaceSetup = {
    cells: new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT),
    threads: options.threads ?? INCREMENT_RACE_DEFAULTS.threads,
    incrementsPerThread: options.incrementsPerThread ?? INCREMENT_RACE_DEFAULTS.incrementsPerThread,
    pauseMs: options.pauseMs ?? INCREMENT_RACE_DEFAULTS.pauseMs,
    locked: options.locked,
  };
  const started = performance.now();
  const workers = Array.from({ length: setup.threads }, () => startTsThread(RACE_ENTRY, { workerData: setup }));
  const exitCodes = await Promise.all(
    workers.map(
      (worker) =>
        new Promise<number>((resolve, reject) => {
          worker.once('error', reject);
          worker.once('exit', resolve);
        }),
    ),
  );
  const expected = setup.threads * setup.incrementsPerThread;
  const counter = Atomics.load(new Int32Array(setup.cells), RACE_CELLS.counter);
  return {
    locked: setup.locked,
    threads: setup.threads,
    expected,
    counter,
    lost: expected - counter,
    exitCodes,
    elapsedMs: performance.now() - started,
  };
}
