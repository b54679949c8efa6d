// Grades the try-it-yourself exercise (exercise/compare-rounds.ts with LAB_EXERCISE=student,
// solutions/compare-rounds.ts otherwise) against real worker processes.
import { loadExercise } from '@tasks-lab/lab-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstProductIds } from '../src/compare.ts';
import { ProcessPool } from '../src/process-pool.ts';
import { exportRowsFor, loadScorer, scoreExportRow, type ScorerModule } from '../src/scoring.ts';

const { compareRounds } = await loadExercise<typeof import('../solutions/compare-rounds.ts')>(
  import.meta.url,
  'compare-rounds.ts',
);

const RANDOM_SCORER = new URL('./fixtures/random-scorer.ts', import.meta.url).href;
const rows = exportRowsFor(firstProductIds(4));
let pool: ProcessPool;
let randomPool: ProcessPool;
let scorer: ScorerModule;

beforeAll(async () => {
  scorer = await loadScorer();
  [pool, randomPool] = await Promise.all([
    new ProcessPool({ size: 2 }).start(),
    new ProcessPool({ size: 2, scorerUrl: RANDOM_SCORER }).start(),
  ]);
});

afterAll(async () => {
  await Promise.all([pool?.close(), randomPool?.close()]);
});

describe('compareRounds (try it yourself)', () => {
  it('When run for 10 and 2000 rounds, Then it reports both sizes with the agreed scores and a start-up share [test:exercise-compare-rounds]', async () => {
    const measurements = await compareRounds(pool, scorer, rows, [10, 2000]);

    expect(measurements.map((m) => m.rounds)).toEqual([10, 2000]);
    for (const m of measurements) {
      expect(m.scores).toEqual(rows.map((row) => scoreExportRow(row, m.rounds)));
      expect(m.serialMs).toBeGreaterThanOrEqual(0);
      expect(m.poolMs).toBeGreaterThan(0);
      expect(m.startupShare).toBeGreaterThan(0);
      expect(m.startupShare).toBeLessThan(1);
    }
  });

  it('When the pool returns different scores, Then it throws instead of reporting timings [test:exercise-refuses-different-scores]', async () => {
    await expect(compareRounds(randomPool, scorer, rows, [10])).rejects.toThrow(/differ/);
  });
});
