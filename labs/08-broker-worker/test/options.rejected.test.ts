import { randomUUID } from 'node:crypto';
import { OptionsError } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { EXPORT_SUBMIT_OPTIONS, SERVER_OPTIONS, SUBMIT_OPTIONS, WORKER_OPTIONS } from '../src/options.ts';
import { readSubmitOptions, UsageError } from '../src/submit.ts';

describe('the options', () => {
  it("When nothing is set, Then every option has the course's value", () => {
    expect(WORKER_OPTIONS.read({ env: {} })).toEqual({
      queueName: 'exports',
      concurrency: 2,
      lockDurationMs: 30_000,
      stalledIntervalMs: 30_000,
      maxStalledCount: 1,
    });
    expect(SUBMIT_OPTIONS.read({ env: {} })).toEqual({ queueName: 'exports', waitSeconds: 15 });
    expect(EXPORT_SUBMIT_OPTIONS.read({ env: {} })).toEqual({ queueName: 'exports', waitSeconds: 15, rows: 1 });
    expect(SERVER_OPTIONS.read({ env: {} })).toEqual({ queueName: 'exports', port: 8000 });
  });

  it('When the environment sets them, Then they are read as numbers and names', () => {
    const env = {
      EXPORTS_QUEUE: 'exports-test',
      WORKER_CONCURRENCY: '4',
      LOCK_DURATION_MS: '2000',
      STALLED_INTERVAL_MS: '1000',
      MAX_STALLED_COUNT: '0',
    };
    expect(WORKER_OPTIONS.read({ env })).toEqual({
      queueName: 'exports-test',
      concurrency: 4,
      lockDurationMs: 2000,
      stalledIntervalMs: 1000,
      maxStalledCount: 0,
    });
  });

  const rejected: Array<[string, string, RegExp]> = [
    ['WORKER_CONCURRENCY', '0', /WORKER_CONCURRENCY must be a whole number from 1 to 64, got "0"/],
    ['WORKER_CONCURRENCY', 'two', /WORKER_CONCURRENCY must be a whole number from 1 to 64, got "two"/],
    ['WORKER_CONCURRENCY', '65', /WORKER_CONCURRENCY must be a whole number from 1 to 64/],
    ['LOCK_DURATION_MS', '0', /LOCK_DURATION_MS must be a whole number of milliseconds from 1 to 86400000, got "0"/],
    ['LOCK_DURATION_MS', '-5', /LOCK_DURATION_MS must be a whole number of milliseconds/],
    ['STALLED_INTERVAL_MS', '1.5', /STALLED_INTERVAL_MS must be a whole number of milliseconds/],
    ['MAX_STALLED_COUNT', '-1', /MAX_STALLED_COUNT must be a whole number from 0 to 100/],
    ['EXPORTS_QUEUE', 'exports:high', /EXPORTS_QUEUE must be 1 to 100 letters, digits/],
  ];
  for (const [variable, value, message] of rejected) {
    it(`When ${variable}=${value}, Then the worker's options are refused, naming the variable and its bounds`, () => {
      expect(() => WORKER_OPTIONS.read({ env: { [variable]: value } })).toThrow(OptionsError);
      expect(() => WORKER_OPTIONS.read({ env: { [variable]: value } })).toThrow(message);
    });
  }

  it('When several values are bad, Then one error names them all', () => {
    expect(() => WORKER_OPTIONS.read({ env: { WORKER_CONCURRENCY: '0', LOCK_DURATION_MS: 'soon' } })).toThrow(
      /WORKER_CONCURRENCY.*; LOCK_DURATION_MS/,
    );
  });

  it('When PORT is out of range, Then the dashboard refuses it (0 is allowed: any free port)', () => {
    expect(() => SERVER_OPTIONS.read({ env: { PORT: '70000' } })).toThrow(
      /PORT must be a whole number from 0 to 65535/,
    );
    expect(SERVER_OPTIONS.read({ env: { PORT: '0' } }).port).toBe(0);
  });
});

describe('the submit CLI options', () => {
  it('When no --timeout-s is given, Then it waits the course default of 15 s (or SUBMIT_TIMEOUT_S)', () => {
    expect(readSubmitOptions([], {}).waitSeconds).toBe(15);
    expect(readSubmitOptions([], { SUBMIT_TIMEOUT_S: '4' }).waitSeconds).toBe(4);
  });

  it('When --timeout-s 2 is given, Then it waits 2 s, whatever the environment says', () => {
    expect(readSubmitOptions(['--timeout-s', '2'], { SUBMIT_TIMEOUT_S: '4' }).waitSeconds).toBe(2);
  });

  for (const value of ['soon', '0', '-3', '2.5', '3601', '2147484']) {
    it(`When --timeout-s is ${value}, Then it is refused with the bounds`, () => {
      expect(() => readSubmitOptions([`--timeout-s=${value}`], {})).toThrow(OptionsError);
      expect(() => readSubmitOptions([`--timeout-s=${value}`], {})).toThrow(
        /SUBMIT_TIMEOUT_S must be a whole number from 1 to 3600/,
      );
    });
  }

  it("When --timeout-s is past Node's timer limit (2147484 s > 2^31-1 ms), Then it is refused, never turned into a timer [test:timeout-over-timer-limit-refused]", () => {
    expect(() => readSubmitOptions(['--timeout-s', '2147484'], {})).toThrow(
      /SUBMIT_TIMEOUT_S must be a whole number from 1 to 3600, got "2147484"/,
    );
    expect(() => readSubmitOptions([], { SUBMIT_TIMEOUT_S: '2147484' })).toThrow(
      /SUBMIT_TIMEOUT_S must be a whole number from 1 to 3600/,
    );
  });

  for (const argv of [['--timeout-s'], ['--timeout-s', ''], ['--timeout-s', '-3']]) {
    it(`When the arguments are ${JSON.stringify(argv)}, Then they are refused as a usage error rather than ignored`, () => {
      expect(() => readSubmitOptions(argv, {})).toThrow(UsageError);
    });
  }

  for (const argv of [['--timeout', '5'], ['5'], ['--rows', '2', 'extra'], ['-t', '5']]) {
    it(`When the arguments are ${JSON.stringify(argv)}, Then the unknown part is refused with a UsageError naming it`, () => {
      expect(() => readSubmitOptions(argv, {})).toThrow(UsageError);
      expect(() => readSubmitOptions(argv, {})).toThrow(/Unknown option|Unexpected argument/);
    });
  }

  it('When --job-id is an upper-case UUID, Then it is read in its canonical lower-case form; a non-UUID is refused', () => {
    const id = randomUUID();
    expect(readSubmitOptions(['--job-id', id.toUpperCase()], {}).jobId).toBe(id);
    expect(() => readSubmitOptions(['--job-id', '../etc/passwd'], {})).toThrow(/--job-id must be a UUID/);
  });

  it('When --rows is given, Then it sets SUBMIT_ROWS, within 1 to 100', () => {
    expect(readSubmitOptions(['--rows', '3'], {}).rows).toBe(3);
    expect(() => readSubmitOptions(['--rows', '101'], {})).toThrow(/SUBMIT_ROWS must be a whole number from 1 to 100/);
  });

  it('When `pnpm submit -- --rows 2` passes the `--` along, Then it is skipped', () => {
    expect(readSubmitOptions(['--', '--rows', '2'], {}).rows).toBe(2);
  });
});
