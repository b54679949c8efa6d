import { describe, expect, it } from 'vitest';
import { formatDuration } from '../src/time.ts';

describe('formatDuration', () => {
  it.each([
    [250, '250 ms'],
    [1000, '1 s'],
    [1500, '1.5 s'],
    [1234, '1.23 s'],
    [90_000, '90 s'],
    [60_000, '1 min'],
    [600_000, '10 min'],
  ])('When a duration is %i ms, Then it reads "%s"', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
