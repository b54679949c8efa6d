import { OptionsError } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { INCREMENT_RACE_OPTIONS, THREADED_BATCH_OPTIONS } from '../src/options.ts';

describe('the lesson options', () => {
  it('When nothing is set, Then the course values apply: 2 threads, a queue of 4, 20 ids, 50 ms reads', () => {
    expect(THREADED_BATCH_OPTIONS.read({ env: {} })).toEqual({
      threads: 2,
      capacity: 4,
      itemCount: 20,
      workMs: 50,
      timeoutMs: 15_000,
    });
    expect(INCREMENT_RACE_OPTIONS.read({ env: {} })).toEqual({ threads: 2, incrementsPerThread: 100, pauseMs: 1 });
  });

  it('When the environment sets a value, Then it is used', () => {
    expect(THREADED_BATCH_OPTIONS.read({ env: { BATCH_QUEUE_CAPACITY: '1', BATCH_READ_MS: '200' } })).toMatchObject({
      capacity: 1,
      workMs: 200,
    });
  });

  it.each([
    ['a zero read time', { BATCH_READ_MS: '0' }, /BATCH_READ_MS must be a whole number of milliseconds from 1/],
    [
      'a negative timeout',
      { BATCH_TIMEOUT_MS: '-5' },
      /BATCH_TIMEOUT_MS must be a whole number of milliseconds from 1/,
    ],
    [
      'a non-numeric capacity',
      { BATCH_QUEUE_CAPACITY: 'four' },
      /BATCH_QUEUE_CAPACITY must be a whole number from 1 to 1000, got "four"/,
    ],
    ['zero threads', { BATCH_THREADS: '0' }, /BATCH_THREADS must be a whole number from 1 to 16/],
  ])(
    'When the environment has %s, Then reading the options fails and names the variable and its bounds',
    (_what, env, message) => {
      expect(() => THREADED_BATCH_OPTIONS.read({ env })).toThrow(OptionsError);
      expect(() => THREADED_BATCH_OPTIONS.read({ env })).toThrow(message);
    },
  );

  it('When the race pause is 0, Then it is allowed (the race is rarer, not gone); a negative pause is refused', () => {
    expect(INCREMENT_RACE_OPTIONS.read({ env: { RACE_PAUSE_MS: '0' } }).pauseMs).toBe(0);
    expect(() => INCREMENT_RACE_OPTIONS.read({ env: { RACE_PAUSE_MS: '-1' } })).toThrow(
      /RACE_PAUSE_MS must be a whole number of milliseconds from 0/,
    );
    expect(() => INCREMENT_RACE_OPTIONS.read({ env: { RACE_THREADS: '1' } })).toThrow(
      /RACE_THREADS must be a whole number from 2/,
    );
  });
});
