// The shared counters of a batch: Python's `counts = {"done": 0, "failed": 0}` plus
// its Lock, laid out as cells of one SharedArrayBuffer so every thread sees the same
// memory. Everything else a thread has (its variables, the job store in the main
// thread) is private to that thread.

export const COUNTER_CELLS = {
  /** The Mutex cell that guards the two counters below. */
  lock: 0,
  done: 1,
  failed: 2,
} as const;

const CELL_COUNT = 3;

export function createCounterBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(CELL_COUNT * Int32Array.BYTES_PER_ELEMENT);
}

/**
 * Adds one to a counter cell with a plain read and write, not an atomic one: call it
 * only while holding the lock, which is what makes the read-modify-write safe.
 */
export function incrementCell(cells: Int32Array, cell: number): void {
  const value = cells[cell];
  if (value === undefined) throw new RangeError(`no counter cell ${cell} (there are ${cells.length})`);
  cells[cell] = value + 1;
}

export interface CounterValues {
  done: number;
  failed: number;
}

/** Reads both counters. Safe without the lock only once no worker can still write them. */
export function readCounters(buffer: SharedArrayBuffer): CounterValues {
  const cells = new Int32Array(buffer);
  return {
    done: Atomics.load(cells, COUNTER_CELLS.done),
    failed: Atomics.load(cells, COUNTER_CELLS.failed),
  };
}
