import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recentRun } from '../src/earlier-labs.ts';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function labWithResult(result: object): string {
  root = mkdtempSync(join(tmpdir(), 'earlier-'));
  const dir = join(root, '01-state-machine');
  mkdirSync(dir);
  writeFileSync(join(dir, '.lab-result.json'), JSON.stringify(result));
  return dir;
}

describe('recentRun', () => {
  it('When the lab verified after the run started, Then that run is recorded instead of a new one', () => {
    const dir = labWithResult({ passed: 11, failed: 0, finishedAt: '2026-01-01T10:00:05.000Z' });
    const run = recentRun(dir, '01-state-machine', Date.parse('2026-01-01T10:00:00Z'));
    expect(run).toMatchObject({ status: 'passed', passed: 11, failed: 0 });
  });

  it('When the result is older than the run, Then it is not reused (the lab runs again)', () => {
    const dir = labWithResult({ passed: 11, failed: 0, finishedAt: '2026-01-01T09:59:59.000Z' });
    expect(recentRun(dir, '01-state-machine', Date.parse('2026-01-01T10:00:00Z'))).toBeUndefined();
  });

  it('When the recent run had a failed check, Then it is recorded as failed', () => {
    const dir = labWithResult({ passed: 10, failed: 1, finishedAt: '2026-01-01T10:00:05.000Z' });
    expect(recentRun(dir, '01-state-machine', Date.parse('2026-01-01T10:00:00Z'))?.status).toBe('failed');
  });
});
