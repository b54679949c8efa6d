// The race the lock prevents, made visible. Several threads add 1 to one shared
// counter many times, each increment as read -> pause -> write. Without the lock two
// threads read the same value, both write value + 1, and one update is lost. With the
// lock the read and the write of one increment can no longer interleave with another's.
import { withResources } from '@tasks-lab/lab-kit';
import { INCREMENT_RACE_OPTIONS, type IncrementRaceSettings } from './options.ts';
import { startTsThread } from './ts-thread.ts';

export const RACE_CELLS = {
  lock: 0,
  counter: 1,
  /** A start barrier: threads count themselves in here and wait until all have arrived. */
  arrived: 2,
} as const;

export interface IncrementRaceOptions extends Partial<IncrementRaceSettings> {
  /** Guard each increment with the Mutex (true) or not (false). */
  locked: boolean;
  /** Aborting it terminates the race's threads; the race then rejects with the abort reason. */
  signal?: AbortSignal;
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
  const settings = INCREMENT_RACE_OPTIONS.read({ env: {}, overrides: options });
  const setup: RaceSetup = {
    cells: new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT),
    ...settings,
    locked: options.locked,
  };
  const started = performance.now();
  // The threads belong to this scope: terminated when the race ends, and at once if
  // `signal` aborts, which also ends the wait for their exits below.
  return withResources(options.signal, async (res) => {
    const workers = Array.from({ length: setup.threads }, () =>
      res.add(startTsThread(RACE_ENTRY, { workerData: setup }), (w) => w.terminate()),
    );
    const exitCodes = await Promise.all(
      workers.map(
        (worker) =>
          new Promise<number>((resolve, reject) => {
            worker.once('error', reject);
            worker.once('exit', resolve);
            res.signal.addEventListener('abort', () => reject(res.signal.reason), { once: true });
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
  });
}
