// Lesson 11's options: the course's values by default, short timings for verify and
// tests, USE_COURSE_TIMINGS=1 to force the course's, and bad values refused by name.
import { OptionsError } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { openJobsDatabase } from '../src/database.ts';
import { describeTimings, readLeaseOptions, readShortLeaseOptions } from '../src/options.ts';

describe('lease options', () => {
  it("When nothing is set, Then the course's values apply", () => {
    expect(readLeaseOptions({ env: {} })).toMatchObject({
      leaseMs: 30_000,
      retryBackoffMs: 10_000,
      deadlineMs: 600_000,
      maxAttempts: 3,
      lockWaitSeconds: 1,
      statementTimeLimitMs: 3000,
      connectTimeoutMs: 3000,
      queryTimeoutMs: 3000,
    });
  });

  it('When verify reads the short timings, Then the lease is 1.5 s and the observation says so', () => {
    const options = readShortLeaseOptions({});
    expect(options.leaseMs).toBe(1500);
    expect(describeTimings(options)).toBe('lease 1.5 s, backoff 500 ms, deadline 1 min, 3 attempts');
  });

  it("When USE_COURSE_TIMINGS=1, Then the course's timings win over the short ones and the observation names them", () => {
    const options = readShortLeaseOptions({ USE_COURSE_TIMINGS: '1' });
    expect(options).toMatchObject({ leaseMs: 30_000, retryBackoffMs: 10_000, deadlineMs: 600_000 });
    expect(describeTimings(options)).toBe(
      "lease 30 s, backoff 10 s, deadline 10 min, 3 attempts (the course's timings)",
    );
  });

  it.each([
    ['LEASE_MS', '0'],
    ['LEASE_MS', '-5'],
    ['RETRY_BACKOFF_MS', 'soon'],
    ['MAX_ATTEMPTS', '0'],
  ])('When %s=%s, Then it is refused with the variable named', (variable, value) => {
    const thrown = (() => {
      try {
        readLeaseOptions({ env: { [variable]: value } });
      } catch (err) {
        return err;
      }
    })();
    expect(thrown).toBeInstanceOf(OptionsError);
    expect((thrown as Error).message).toContain(variable);
  });

  it('When the statement time limit is not above the lock wait, Then it is refused (a lock wait would be cut off as a slow statement)', () => {
    expect(() => readLeaseOptions({ env: { STATEMENT_TIME_LIMIT_MS: '1000', LOCK_WAIT_SECONDS: '1' } })).toThrow(
      /STATEMENT_TIME_LIMIT_MS/,
    );
  });

  it("When the client's query bound is not above the lock wait, Then it is refused, from the environment and from code (the client would give up before the server could say 1205)", async () => {
    expect(() => readLeaseOptions({ env: { DB_QUERY_TIMEOUT_MS: '1000', LOCK_WAIT_SECONDS: '1' } })).toThrow(
      /DB_QUERY_TIMEOUT_MS \(1000\) must be above LOCK_WAIT_SECONDS \(1 s\)/,
    );
    const settings = { lockWaitSeconds: 5, statementTimeLimitMs: 10_000, connectTimeoutMs: 3000, queryTimeoutMs: 3000 };
    await expect(openJobsDatabase({ database: 'tasks_lab11_never_opened', settings })).rejects.toThrow(
      /DB_QUERY_TIMEOUT_MS \(3000\) must be above LOCK_WAIT_SECONDS \(5 s\)/,
    );
  });
});
