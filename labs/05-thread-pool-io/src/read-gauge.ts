// How many reads are inside readSync right now, counted by the worker threads themselves
// in shared memory. The pool keeps its own view too; this one cannot be fooled by the
// pool's bookkeeping, because the threads write it while they block.
export const IN_READ_CELL = 0;
export const PEAK_IN_READ_CELL = 1;

export function createReadGauge(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
}

export function enterRead(gauge: Int32Array): void {
  const now = Atomics.add(gauge, IN_READ_CELL, 1) + 1;
  // Raise the peak with compare-and-swap: two threads may enter at the same moment.
  for (;;) {
    const peak = Atomics.load(gauge, PEAK_IN_READ_CELL);
    if (now <= peak || Atomics.compareExchange(gauge, PEAK_IN_READ_CELL, peak, now) === peak) return;
  }
}

export function leaveRead(gauge: Int32Array): void {
  Atomics.sub(gauge, IN_READ_CELL, 1);
}

export function readGauge(gauge: Int32Array): { inRead: number; peakInRead: number } {
  return { inRead: Atomics.load(gauge, IN_READ_CELL), peakInRead: Atomics.load(gauge, PEAK_IN_READ_CELL) };
}
