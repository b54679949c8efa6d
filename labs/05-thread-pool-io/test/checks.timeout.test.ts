// A check that runs out of time must not leave threads behind for the next one.
import { findCheck, runCheck } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { buildChecks } from '../scripts/checks.ts';
import { BlockingIoPool, type PoolOptions } from '../src/io-pool.ts';

describe('a check past its time limit', () => {
  it('When a check times out mid-read, Then it fails and its pool has no live thread when runCheck returns [test:timed-out-check-leaves-no-thread]', async () => {
    const pools: BlockingIoPool[] = [];
    const createPool = (options: PoolOptions) => {
      const pool = new BlockingIoPool(options);
      pools.push(pool);
      return pool;
    };
    // The course's 2 s read, and a time limit that ends the check long before it is done.
    const check = findCheck(buildChecks({ createPool }), 'wait-timeout-read-goes-on');

    const result = await runCheck({ ...check, timeoutMs: 1_500 });

    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/no answer within 1500 ms; its resources were released/);
    expect(pools).toHaveLength(1);
    expect(pools[0]!.snapshot().liveThreads).toBe(0);
  });
});
