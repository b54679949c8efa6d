import { describe, expect, it } from 'vitest';
import { findScoreDifference, firstProductIds } from '../src/compare.ts';

const a = { productId: 1, score: 10 };
const b = { productId: 2, score: 20 };

describe('findScoreDifference', () => {
  it('When both lists hold the same scores in the same order, Then there is no difference', () => {
    expect(findScoreDifference([a, b], [{ ...a }, { ...b }])).toBeUndefined();
  });

  it('When the same scores come back in another order, Then the first differing row is named', () => {
    expect(findScoreDifference([a, b], [b, a])).toBe('row 0: expected product 1 -> 10, got product 2 -> 20');
  });

  it('When a score is missing, Then the counts are named', () => {
    expect(findScoreDifference([a, b], [a])).toBe('2 scores expected, got 1');
  });

  it('When one score differs, Then that row is named', () => {
    expect(findScoreDifference([a, b], [a, { productId: 2, score: 21 }])).toBe(
      'row 1: expected product 2 -> 20, got product 2 -> 21',
    );
  });

  it('When product ids are asked for, Then they count from 1', () => {
    expect(firstProductIds(3)).toEqual([1, 2, 3]);
  });
});
