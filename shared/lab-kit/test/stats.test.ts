// The shared statistics: pure.
import { describe, expect, it } from 'vitest';
import { median, percentile, plural, rate } from '../src/stats.ts';

describe('median', () => {
  it('When the count is odd, Then it is the middle value, whatever the order', () => {
    expect(median([512, 3, 40])).toBe(40);
    expect(median([7])).toBe(7);
  });

  it('When the count is even, Then it is the mean of the two middle values', () => {
    expect(median([10, 40, 20, 30])).toBe(25);
  });

  it('When there are no values, Then it is NaN, and the input is left unsorted', () => {
    expect(median([])).toBeNaN();
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('rate', () => {
  it('When 300 events take 1.5 s, Then the rate is 200 per second; no time passed is 0', () => {
    expect(rate(300, 1500)).toBe(200);
    expect(rate(5, 0)).toBe(0);
  });
});

describe('percentile', () => {
  it('When the percentiles of 10 durations are taken, Then they are nearest-rank: p50 the 5th, p95 and p99 the 10th', () => {
    const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 100];
    expect(percentile(values, 0.5)).toBe(5);
    expect(percentile(values, 0.95)).toBe(100);
    expect(percentile(values, 0.99)).toBe(100);
  });

  it('When 1..100 are ranked, Then p50 and p99 are 50 and 99; one value is every percentile; none is null', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 0.5)).toBe(50);
    expect(percentile(values, 0.99)).toBe(99);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([7], 0)).toBe(7);
    expect(percentile([], 0.5)).toBeNull();
  });
});

describe('plural', () => {
  it('When the count is one, Then the noun stays singular; otherwise it takes an s', () => {
    expect(plural(1, 'test')).toBe('1 test');
    expect(plural(0, 'test')).toBe('0 tests');
    expect(plural(3, 'run')).toBe('3 runs');
  });
});
