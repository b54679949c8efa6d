// A lock that several worker threads can share. Worker threads do not share
// JavaScript objects, so a lock cannot be an object either: it is one Int32 cell in a
// SharedArrayBuffer that every thread can see. 0 means free, 1 means held.
//
// lock():   try to swap 0 -> 1 in one atomic step (compareExchange). If another thread
//           holds it, sleep on the cell (Atomics.wait) until unlock() wakes us, then retry.
// unlock(): set the cell back to 0 and wake one sleeping thread (Atomics.notify).
//
// Atomics.wait blocks the calling thread, the way Python's Lock.acquire() does. That is
// fine in a worker thread; on the main thread it would freeze the event loop, so the
// main thread in this lab never takes the lock: it reads the counters only after every
// worker has exited.

const FREE = 0;
const HELD = 1;

export class Mutex {
  constructor(
    private readonly cells: Int32Array,
    private readonly index: number,
  ) {
    if (!(cells.buffer instanceof SharedArrayBuffer)) {
      throw new TypeError('a Mutex needs an Int32Array over a SharedArrayBuffer, or other threads cannot see it');
    }
  }

  lock(): void {
    while (Atomics.compareExchange(this.cells, this.index, FREE, HELD) !== FREE) {
      // Sleeps only while the cell still reads HELD; returns at once if it was freed meanwhile.
      Atomics.wait(this.cells, this.index, HELD);
    }
  }

  unlock(): void {
    Atomics.store(this.cells, this.index, FREE);
    Atomics.notify(this.cells, this.index, 1);
  }

  /** Runs `criticalSection` while holding the lock: Python's `with mutex:`. Keep it short. */
  withLock<T>(criticalSection: () => T): T {
    this.lock();
    try {
      return criticalSection();
    } finally {
      this.unlock();
    }
  }
}
