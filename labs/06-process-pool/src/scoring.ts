// The CPU-bound part of the export: score each product row by looping over its
// text. Nothing here waits for a network or a disk, so the time is pure CPU, and
// the same row with the same rounds always gives the same score. That determinism
// is what lets us compare a serial run with a pool run number by number.

/** The course's value: enough rounds that one row costs tens of milliseconds. */
export const DEFAULT_ROUNDS = 2000;

/** The modulus keeps the running total small enough to stay an exact integer in a double. */
const MODULUS = 1_000_000_007;

/** One product row of the export, as plain data: it has to cross a process boundary. */
export interface ExportRow {
  productId: number;
  text: string;
}

export interface RowScore {
  productId: number;
  score: number;
}

/** Rolling hash over the text, repeated `rounds` times. Pure: no clock, no randomness, no I/O. */
export function scoreText(text: string, rounds: number): number {
  let total = 0;
  for (let round = 0; round < rounds; round += 1) {
    for (let i = 0; i < text.length; i += 1) {
      total = (total * 33 + text.charCodeAt(i)) % MODULUS;
    }
  }
  return total;
}

export function scoreExportRow(row: ExportRow, rounds: number = DEFAULT_ROUNDS): RowScore {
  return { productId: row.productId, score: scoreText(row.text, rounds) };
}

/** A made-up but stable product row (about 700 characters), so every run scores the same input. */
export function exportRowFor(productId: number): ExportRow {
  return { productId, text: `product ${productId} export line; `.repeat(24) };
}

export function exportRowsFor(productIds: readonly number[]): ExportRow[] {
  return productIds.map(exportRowFor);
}

/** What a scorer module exports. The pool's child processes import one by URL. */
export interface ScorerModule {
  scoreExportRow(row: ExportRow, rounds: number): RowScore;
}

/** This file, as the scorer the pool runs unless told otherwise. */
export const DEFAULT_SCORER_URL = import.meta.url;

export async function loadScorer(scorerUrl: string = DEFAULT_SCORER_URL): Promise<ScorerModule> {
  const scorer = (await import(scorerUrl)) as Partial<ScorerModule>;
  if (typeof scorer.scoreExportRow !== 'function') {
    throw new Error(`${scorerUrl} does not export a scoreExportRow function`);
  }
  return scorer as ScorerModule;
}
