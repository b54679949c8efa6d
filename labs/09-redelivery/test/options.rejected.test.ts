import { OptionsError, startTsProcess } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { EXPORT_WORKER_SCRIPT } from '../scripts/scenarios.ts';
import { CPU_WORKER_OPTIONS, WORKER_OPTIONS } from '../src/options.ts';

describe('WORKER_OPTIONS', () => {
  it('When nothing is set, Then the worker takes lesson 08 settings with one job at a time', () => {
    expect(WORKER_OPTIONS.read({ env: {} })).toMatchObject({
      queueName: 'exports',
      concurrency: 1,
      lockDurationMs: 30_000,
      stalledIntervalMs: 30_000,
      maxStalledCount: 1,
    });
  });

  it('When a timing is zero and a count is not a number, Then both are refused, each naming its variable and bounds', () => {
    const read = () => WORKER_OPTIONS.read({ env: { LOCK_DURATION_MS: '0', MAX_STALLED_COUNT: 'lots' } });
    expect(read).toThrow(OptionsError);
    expect(read).toThrow(/LOCK_DURATION_MS must be a whole number of milliseconds from 1 to \d+, got "0"/);
    expect(read).toThrow(/MAX_STALLED_COUNT must be a whole number from 0 to 100, got "lots"/);
  });

  it('When EXPORT_LEDGER is neither off nor on, Then it is refused naming the choices; unset, the ledger is off', () => {
    expect(() => WORKER_OPTIONS.read({ env: { EXPORT_LEDGER: 'yes' } })).toThrow(
      /EXPORT_LEDGER must be one of off, on, got "yes"/,
    );
    expect(WORKER_OPTIONS.read({ env: {} }).ledger).toBe('off');
  });

  it('When the busy queue name has a colon, Then the CPU worker options refuse it', () => {
    expect(() => CPU_WORKER_OPTIONS.read({ env: { BUSY_QUEUE: 'busy:1' } })).toThrow(/BUSY_QUEUE must be/);
  });
});

describe('the worker process', () => {
  it('When it is started with STALLED_INTERVAL_MS=-5, Then it exits 1 with one line naming the variable, before touching Redis', {
    timeout: 60_000,
  }, async () => {
    const worker = startTsProcess(EXPORT_WORKER_SCRIPT, { env: { STALLED_INTERVAL_MS: '-5' } });
    const exit = await worker.exited;

    expect(exit.code).toBe(1);
    expect(worker.output()).toMatch(/STALLED_INTERVAL_MS must be a whole number of milliseconds from 1/);
    expect(worker.output()).not.toMatch(/ready/);
  });
});
