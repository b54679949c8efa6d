import { describe, expect, it } from 'vitest';
import { Mutex } from '../src/mutex.ts';

const sharedCells = () => new Int32Array(new SharedArrayBuffer(8));

describe('Mutex', () => {
  it('When built over memory other threads cannot see, Then it refuses with a clear error', () => {
    expect(() => new Mutex(new Int32Array(2), 0)).toThrow(/SharedArrayBuffer/);
  });

  it('When withLock runs a section, Then the cell reads held inside and free afterwards', () => {
    const cells = sharedCells();
    const mutex = new Mutex(cells, 0);
    const inside = mutex.withLock(() => Atomics.load(cells, 0));
    expect(inside).toBe(1);
    expect(Atomics.load(cells, 0)).toBe(0);
  });

  it('When the critical section throws, Then the lock is still released', () => {
    const cells = sharedCells();
    const mutex = new Mutex(cells, 0);
    expect(() =>
      mutex.withLock(() => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(Atomics.load(cells, 0)).toBe(0);
  });

  it('When one mutex guards cell 0, Then the other cells of the buffer are untouched', () => {
    const cells = sharedCells();
    new Mutex(cells, 0).withLock(() => undefined);
    expect(Atomics.load(cells, 1)).toBe(0);
  });
});
