import { OptionsError } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { RETRY_SUBMIT_OPTIONS, RETRY_WORKER_OPTIONS, readRetryWorkerOptions } from '../src/options.ts';

describe('options: read once, validated', () => {
  it("When nothing is set, Then the course values apply (and lesson 08's queue and lock settings come along)", () => {
    expect(readRetryWorkerOptions({ env: {} })).toMatchObject({
      queueName: 'exports',
      concurrency: 4,
      backoffBaseMs: 1000,
      backoffCapMs: 8000,
      minWorkMs: 100,
      softTimeLimitMs: 8000,
      hardTimeLimitMs: 10_000,
      lockDurationMs: 30_000,
      jitterSeed: '',
    });
    expect(RETRY_SUBMIT_OPTIONS.read({ env: {} })).toMatchObject({ queueName: 'exports', deadlineMs: 600_000 });
  });

  it('When a timing is zero, negative or not a number, Then it is refused naming the variable and its bounds', () => {
    for (const bad of ['0', '-50', 'soon', '1.5']) {
      expect(() => readRetryWorkerOptions({ env: { RETRY_BACKOFF_BASE_MS: bad } })).toThrow(
        /RETRY_BACKOFF_BASE_MS must be a whole number of milliseconds from 1 to/,
      );
    }
    expect(() => RETRY_SUBMIT_OPTIONS.read({ env: { EXPORT_DEADLINE_MS: '0' } })).toThrow(/EXPORT_DEADLINE_MS must be/);
  });

  it('When several values are bad, Then one error names them all', () => {
    const read = () => readRetryWorkerOptions({ env: { SOFT_TIME_LIMIT_MS: '-1', WORKER_CONCURRENCY: '0' } });
    expect(read).toThrow(OptionsError);
    expect(read).toThrow(/WORKER_CONCURRENCY must be a whole number from 1 to 64.*SOFT_TIME_LIMIT_MS must be/);
  });

  it('When the soft limit is not below the hard one, Then it is refused', () => {
    expect(() => readRetryWorkerOptions({ env: { SOFT_TIME_LIMIT_MS: '10000' } })).toThrow(
      /SOFT_TIME_LIMIT_MS \(10000\) must be below HARD_TIME_LIMIT_MS \(10000\)/,
    );
  });

  it('When values are written with toEnv, Then reading them back gives the same values', () => {
    const values = {
      ...RETRY_WORKER_OPTIONS.defaults(),
      queueName: 'retries-x',
      backoffBaseMs: 50,
      softTimeLimitMs: 500,
      hardTimeLimitMs: 1500,
    };
    expect(readRetryWorkerOptions({ env: RETRY_WORKER_OPTIONS.toEnv(values) })).toEqual(values);
  });
});
