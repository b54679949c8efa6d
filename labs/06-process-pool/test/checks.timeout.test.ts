// A check that runs out of time must leave nothing behind for the next one: its pool is
// closed when the check's signal aborts, and the worker processes are gone when runCheck returns.
import { faultRule, findCheck, isAlive, runCheck } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { buildChecks } from '../scripts/checks.ts';
import { ProcessPool, type ProcessPoolOptions } from '../src/process-pool.ts';

describe('a check that runs out of time', () => {
  it('When a worker hangs on its row until the time limit, Then the check fails and no worker process is left [test:timed-out-check-leaves-no-process]', {
    timeout: 60_000,
  }, async () => {
    const workerPids: number[] = [];
    /** The first worker never answers (LAB_FAULTS hang); records the pids it started. */
    class HangingPool extends ProcessPool {
      constructor(options: ProcessPoolOptions) {
        super({ ...options, firstWorkerFaults: faultRule('while-scoring', 'hang', 'always') });
      }
      override async start(): Promise<this> {
        await super.start();
        workerPids.push(...this.pids());
        return this;
      }
    }
    const checks = buildChecks({ createPool: (options) => new HangingPool(options), options: { rows: 2, rounds: 10 } });
    const check = { ...findCheck(checks, 'serial-equals-pool'), timeoutMs: 10_000 };

    const result = await runCheck(check);

    expect(result.ok).toBe(false);
    expect(result.observed).toBe('no answer within 10000 ms; its resources were released');
    expect(workerPids).toHaveLength(2);
    expect(workerPids.filter(isAlive)).toEqual([]);
  });
});
