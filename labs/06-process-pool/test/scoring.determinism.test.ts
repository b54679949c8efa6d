import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SCORER_URL,
  exportRowFor,
  exportRowsFor,
  loadScorer,
  scoreExportRow,
  scoreText,
} from '../src/scoring.ts';

describe('scoring', () => {
  it('When "ab" is hashed for one round, Then the rolling hash gives 97 * 33 + 98', () => {
    expect(scoreText('ab', 1)).toBe(97 * 33 + 98);
  });

  it('When the same row is scored twice, Then both scores are equal [test:same-row-same-score]', () => {
    const row = exportRowFor(42);
    expect(scoreExportRow(row, 50)).toEqual(scoreExportRow(row, 50));
  });

  it('When two different products are scored, Then their scores differ', () => {
    const [first, second] = exportRowsFor([1, 2]).map((row) => scoreExportRow(row, 50));
    expect(first!.score).not.toBe(second!.score);
  });

  it('When a row is built for a product, Then it is plain data that survives a structured clone unchanged [test:row-is-plain-data]', () => {
    const row = exportRowFor(7);
    expect(structuredClone(row)).toEqual(row);
    expect(row.text.length).toBeGreaterThan(500);
  });

  it('When the default scorer is loaded by URL, Then it is this module', async () => {
    const scorer = await loadScorer(DEFAULT_SCORER_URL);
    expect(scorer.scoreExportRow(exportRowFor(3), 5)).toEqual(scoreExportRow(exportRowFor(3), 5));
  });

  it('When a module without scoreExportRow is loaded as a scorer, Then it is refused by name', async () => {
    const notAScorer = new URL('../src/pool-messages.ts', import.meta.url).href;
    await expect(loadScorer(notAScorer)).rejects.toThrow(/does not export a scoreExportRow function/);
  });
});
