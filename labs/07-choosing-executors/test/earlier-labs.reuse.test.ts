import { describe, expect, it } from 'vitest';
import { recentRun } from '../src/earlier-labs.ts';
import { addLabResult, makeLabsDir } from './fake-labs.ts';

const LAB = '01-state-machine';
const runStarted = Date.parse('2026-01-01T10:00:00Z');

/** A labs folder where lab 01's verify finished at `finishedAt` with these checks. */
function labsWithResult(finishedAt: string, checks: Array<{ id: string; ok: boolean }>): string {
  const labsDir = makeLabsDir();
  addLabResult(
    labsDir,
    LAB,
    checks.map(({ id, ok }) => ({ id, name: id, ok, observed: ok ? 'fine' : 'broken' })),
    new Date(finishedAt),
  );
  return labsDir;
}

describe('recentRun', () => {
  it('When the lab verified after the run started, Then that run is recorded instead of a new one', () => {
    const labsDir = labsWithResult('2026-01-01T10:00:05.000Z', [
      { id: 'a', ok: true },
      { id: 'b', ok: true },
    ]);
    expect(recentRun(labsDir, LAB, runStarted)).toMatchObject({
      status: 'passed',
      passed: 2,
      failed: 0,
      failedChecks: [],
    });
  });

  it('When the result is older than the run, Then it is not reused (the lab runs again)', () => {
    const labsDir = labsWithResult('2026-01-01T09:59:59.000Z', [{ id: 'a', ok: true }]);
    expect(recentRun(labsDir, LAB, runStarted)).toBeUndefined();
  });

  it('When the recent run had a failed check, Then it is recorded as failed with that check id', () => {
    const labsDir = labsWithResult('2026-01-01T10:00:05.000Z', [
      { id: 'a', ok: true },
      { id: 'restart-forgets-jobs', ok: false },
    ]);
    expect(recentRun(labsDir, LAB, runStarted)).toMatchObject({
      status: 'failed',
      failedChecks: ['restart-forgets-jobs'],
    });
  });

  it('When there is no result file, Then there is nothing to reuse', () => {
    expect(recentRun(makeLabsDir(), LAB, runStarted)).toBeUndefined();
  });
});
