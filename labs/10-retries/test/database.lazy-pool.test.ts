import type { Pool } from 'mysql2/promise';
import { sleep } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { lazyPool } from '../src/database.ts';

/** A stand-in pool that counts how often it was opened and ended; opening takes a while, like a real one. */
function countingOpen(failFirst = false) {
  const counts = { opened: 0, ended: 0 };
  const open = async (): Promise<Pool> => {
    counts.opened += 1;
    await sleep(20);
    if (failFirst && counts.opened === 1) throw new Error('database down');
    return { end: async () => void (counts.ended += 1) } as unknown as Pool;
  };
  return { counts, open };
}

describe('database: one pool per process', () => {
  it('When four jobs ask for the pool at the same moment, Then it is opened once and all four get it', async () => {
    const { counts, open } = countingOpen();
    const pool = lazyPool(open);
    const pools = await Promise.all([pool.get(), pool.get(), pool.get(), pool.get()]);
    expect(counts.opened).toBe(1);
    expect(new Set(pools).size).toBe(1);
    await pool.close();
    await pool.close();
    expect(counts.ended).toBe(1);
  });

  it('When the first opening fails, Then the next job opens it again instead of failing for ever', async () => {
    const { counts, open } = countingOpen(true);
    const pool = lazyPool(open);
    await expect(pool.get()).rejects.toThrow('database down');
    await expect(pool.get()).resolves.toBeDefined();
    expect(counts.opened).toBe(2);
  });

  it('When the pool was never opened, Then close does nothing', async () => {
    const { counts, open } = countingOpen();
    await lazyPool(open).close();
    expect(counts).toEqual({ opened: 0, ended: 0 });
  });
});
