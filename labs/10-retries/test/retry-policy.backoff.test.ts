import { describe, expect, it } from 'vitest';
import {
  DEADLINE_EXCEEDED,
  INSUFFICIENT_RETRY_BUDGET,
  RETRY_POLICY_DEFAULTS,
  backoffCeilingMs,
  deadlineProblem,
  fullJitterDelayMs,
  planRetry,
  seededJitter,
} from '../src/retry-policy.ts';

const policy = RETRY_POLICY_DEFAULTS;

describe('retry-policy: capped full-jitter backoff', () => {
  it('When retries follow each other, Then the ceiling doubles from 1 s and stops at the 8 s cap', () => {
    expect([1, 2, 3, 4, 5, 12, 1100].map((retry) => backoffCeilingMs(retry, policy))).toEqual([
      1000, 2000, 4000, 8000, 8000, 8000, 8000,
    ]);
  });

  it('When the random source gives 0, Then the wait is 0 (full jitter starts at zero)', () => {
    expect(fullJitterDelayMs(3, policy, () => 0)).toBe(0);
  });

  it('When the random source gives its largest value, Then the wait stays below the ceiling and never above the cap [test:backoff-capped]', () => {
    const largest = () => 1 - Number.EPSILON;
    expect(fullJitterDelayMs(1, policy, largest)).toBe(999);
    expect(fullJitterDelayMs(9, policy, largest)).toBe(7999);
  });

  it('When the random source gives 0.5, Then the wait is half the ceiling', () => {
    expect(fullJitterDelayMs(2, policy, () => 0.5)).toBe(1000);
  });

  it('When many waits are drawn with Math.random, Then every one lies in [0, ceiling]', () => {
    for (let i = 0; i < 5000; i++) {
      const retry = 1 + (i % 8);
      const wait = fullJitterDelayMs(retry, policy);
      expect(wait).toBeGreaterThanOrEqual(0);
      expect(wait).toBeLessThanOrEqual(backoffCeilingMs(retry, policy));
    }
  });

  it('When the jitter is seeded, Then a seed and a retry number always draw the same number in [0, 1), and other seeds draw others [test:seeded-jitter-repeatable]', () => {
    const draws = (seed: string) => [1, 2, 3, 4].map((retry) => seededJitter(seed)(retry));
    expect(draws('jitter')).toEqual(draws('jitter'));
    expect(draws('jitter')).not.toEqual(draws('another seed'));
    for (const draw of [...draws('jitter'), ...draws('another seed')]) {
      expect(draw).toBeGreaterThanOrEqual(0);
      expect(draw).toBeLessThan(1);
    }
    // The numbers the timed check relies on: with base 400 ms and cap 1600 ms, waits of 188, 713 and 516 ms.
    const timed = { backoffBaseMs: 400, backoffCapMs: 1600 };
    expect([1, 2, 3].map((retry) => fullJitterDelayMs(retry, timed, () => seededJitter('jitter')(retry)))).toEqual([
      188, 713, 516,
    ]);
  });

  it('When a retry number is 0 or fractional, Then it is refused', () => {
    expect(() => backoffCeilingMs(0, policy)).toThrow(RangeError);
    expect(() => backoffCeilingMs(1.5, policy)).toThrow(RangeError);
  });
});

describe('retry-policy: the deadline', () => {
  const now = 5_000_000;

  it('When the deadline is now or past, Then the problem is "deadline exceeded"', () => {
    expect(deadlineProblem(now, now)).toBe(DEADLINE_EXCEEDED);
    expect(deadlineProblem(now, now - 1)).toBe(DEADLINE_EXCEEDED);
    expect(deadlineProblem(now, now + 1)).toBeUndefined();
  });

  it('When the drawn wait plus the minimum work fits before the deadline, Then a retry is planned with that wait', () => {
    expect(planRetry({ nowMs: now, deadlineAt: now + 10_000, retry: 2, policy, random: () => 0.5 })).toEqual({
      retry: true,
      delayMs: 1000,
    });
  });

  it('When the wait plus the minimum work reaches the deadline, Then the plan is "insufficient retry budget"', () => {
    // wait 1000 + min work 100 = exactly the 1100 ms left: too late.
    expect(planRetry({ nowMs: now, deadlineAt: now + 1100, retry: 2, policy, random: () => 0.5 })).toEqual({
      retry: false,
      reason: INSUFFICIENT_RETRY_BUDGET,
    });
  });

  it('When only 50 ms remain, Then even a zero wait cannot fit one more try [test:50ms-left-no-retry]', () => {
    expect(planRetry({ nowMs: now, deadlineAt: now + 50, retry: 1, policy, random: () => 0 })).toEqual({
      retry: false,
      reason: INSUFFICIENT_RETRY_BUDGET,
    });
  });
});
