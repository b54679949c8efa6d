import { OptionsError } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { BlockingIoPool } from '../src/io-pool.ts';
import { BLOCKING_READ_OPTIONS, IO_POOL_OPTIONS } from '../src/options.ts';

describe('the lesson options', () => {
  it('When nothing is set, Then the course values apply: 2 threads, 4 pending, 20 slices of 100 ms, a 200 ms wait', () => {
    expect(IO_POOL_OPTIONS.read({ env: {} })).toEqual({ threads: 2, maxPending: 4 });
    expect(BLOCKING_READ_OPTIONS.read({ env: {} })).toEqual({ slices: 20, sliceMs: 100, waitTimeoutMs: 200 });
  });

  it.each([
    ['a zero slice time', { READ_SLICE_MS: '0' }, /READ_SLICE_MS must be a whole number of milliseconds from 1/],
    [
      'a negative wait timeout',
      { READ_WAIT_TIMEOUT_MS: '-200' },
      /READ_WAIT_TIMEOUT_MS must be a whole number of milliseconds from 1/,
    ],
    [
      'a non-numeric slice count',
      { READ_SLICES: 'many' },
      /READ_SLICES must be a whole number from 1 to 10000, got "many"/,
    ],
  ])(
    'When the environment has %s, Then reading the read options fails and names the variable [test:bad-timing-refused]',
    (_what, env, message) => {
      expect(() => BLOCKING_READ_OPTIONS.read({ env })).toThrow(OptionsError);
      expect(() => BLOCKING_READ_OPTIONS.read({ env })).toThrow(message);
    },
  );

  it('When the pool is asked for 0 threads or a negative queue, Then both problems are named in one error', () => {
    expect(() => IO_POOL_OPTIONS.read({ env: { POOL_THREADS: '0', POOL_MAX_PENDING: '-1' } })).toThrow(
      /POOL_THREADS must be a whole number from 1 to 32, got "0"; POOL_MAX_PENDING must be a whole number from 1/,
    );
  });

  it('When a pool is built in code with 0 threads, Then it refuses before starting any thread', () => {
    expect(() => new BlockingIoPool({ threads: 0 })).toThrow(/threads must be a whole number from 1 to 32/);
  });
});
