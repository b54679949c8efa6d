// Every check of the lesson, run for real against a deliberately broken part: each must fail.
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { describe } from 'vitest';
import { buildChecks, type CheckDeps } from '../scripts/checks.ts';
import {
  ProcessPool,
  type PendingScoreBatch,
  type ScoreBatchOptions,
  type ScoreBatchOutcome,
} from '../src/process-pool.ts';
import type { ExportRow } from '../src/scoring.ts';

/** Broken: on a lost worker it hands back the scores that did arrive, as if the batch were done. */
class PartialResultsPool extends ProcessPool {
  protected override abandonBatch(batch: PendingScoreBatch): void {
    batch.resolve(batch.results.filter((result) => result !== undefined));
  }
}

/** Broken: a lost worker is not replaced, so the pool shrinks with every crash. */
class ShrinkingPool extends ProcessPool {
  protected override replaceLostWorker(): void {}
}

/** Broken: starts a fresh pool for every batch (the "pool per request" mistake). */
class PoolPerBatch extends ProcessPool {
  override async scoreBatch(rows: readonly ExportRow[], options?: ScoreBatchOptions): Promise<ScoreBatchOutcome> {
    const fresh = await new ProcessPool({ size: this.size, scorerUrl: this.scorerUrl }).start();
    try {
      return await fresh.scoreBatch(rows, options);
    } finally {
      await fresh.close();
    }
  }
}

/** Broken: a scorer that adds randomness, as one that read the clock or a counter would. */
const randomScorer: CheckDeps = { scorerUrl: new URL('./fixtures/random-scorer.ts', import.meta.url).href };

describe('checks can fail', () => {
  const suite = canFailSuite(buildChecks);

  suite.breaks('serial-equals-pool', 'the scorer uses randomness', () => randomScorer, {
    observed: /^serial and pool differ: row 0/,
  });
  suite.breaks('timings-reported', 'the scorer uses randomness', () => randomScorer, {
    observed: /the scores did not agree, so these timings mean nothing/,
  });
  suite.breaks(
    'pool-reused',
    'a fresh pool is started for every batch',
    () => ({ createPool: (options) => new PoolPerBatch(options), options: { rounds: 100 } }),
    {
      observed: /pool started pids/,
    },
  );
  suite.breaks(
    'function-refused-before-send',
    "the pool uses Node's JSON channel (the function slips through)",
    () => ({ createPool: (options) => new ProcessPool({ ...options, serialization: 'json' }) }),
    { observed: /^no error: the batch succeeded with 4 rows; job succeeded/ },
  );
  suite.breaks(
    'lost-worker-fails-batch',
    'the pool returns partial results after losing a worker',
    () => ({ createPool: (options) => new PartialResultsPool(options) }),
    {
      observed: /the batch resolved with \d+ of 12 scores; job succeeded/,
    },
  );
  suite.breaks(
    'lost-worker-replaced',
    'the pool does not replace a lost worker',
    () => ({ createPool: (options) => new ShrinkingPool(options) }),
    {
      observed: /replacement none/,
    },
  );
  suite.coversEveryCheck();
});
