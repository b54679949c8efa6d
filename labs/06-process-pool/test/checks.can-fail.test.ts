// The key checks, fed deliberately broken parts: each must report a failure.
import { runCheck, type Check } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { buildChecks, type CheckDeps } from '../scripts/checks.ts';
import { ProcessPool, type PendingScoreBatch, type ScoreBatchOptions, type ScoreBatchOutcome } from '../src/process-pool.ts';
import type { ExportRow } from '../src/scoring.ts';

/** Broken: on a lost worker it hands back the scores that did arrive, as if the batch were done. */
class PartialResultsPool extends ProcessPool {
  protected override abandonBatch(batch: PendingScoreBatch): void {
    batch.resolve(batch.results.filter((result) => result !== undefined));
  }
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

async function runOnly(deps: CheckDeps, nameStart: string) {
  const check = buildChecks(deps).find((c: Check) => c.name.startsWith(nameStart));
  if (!check) throw new Error(`no check named "${nameStart}..."`);
  return runCheck(check);
}

describe('checks can fail', () => {
  it('When the pool returns partial results after losing a worker, Then the killed-worker check fails', async () => {
    const result = await runOnly({ createPool: (options) => new PartialResultsPool(options) }, 'a worker killed mid-batch');
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/the batch resolved with \d+ of 12 scores; job succeeded/);
  });

  it('When the scorer uses randomness, Then the equality check fails', async () => {
    const result = await runOnly({ scorerUrl: new URL('./fixtures/random-scorer.ts', import.meta.url).href }, 'serial and pool scores are equal');
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/^serial and pool differ: row 0/);
  });

  it("When the pool uses Node's JSON channel, Then the function slips through and the not-sendable check fails", async () => {
    const result = await runOnly({ createPool: (options) => new ProcessPool({ ...options, serialization: 'json' }) }, 'a function in a row');
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/^no error: the batch succeeded with 4 rows; job succeeded/);
  });

  it('When a fresh pool is started for every batch, Then the reuse check fails', async () => {
    const result = await runOnly({ createPool: (options) => new PoolPerBatch(options), rounds: 100 }, 'the pool is created once');
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/pool started pids/);
  });
});
