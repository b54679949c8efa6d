// `pnpm lab NN --only <id>` runs that check alone and leaves the lesson's remembered result as it
// was; an id no check has is a failure that lists the lesson's ids. The results go to a temporary
// folder (TASKS_LAB_RESULT_DIR): pnpm test runs this beside lab 03's own verify.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/labs.ts';

const resultDir = mkdtempSync(join(tmpdir(), 'only-result-'));
afterAll(() => rmSync(resultDir, { recursive: true, force: true }));

const lab = (...args: string[]) =>
  spawnSync('pnpm', ['--silent', 'lab', '03', ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 100_000,
    env: { ...process.env, TASKS_LAB_RESULT_DIR: resultDir },
  });

describe('pnpm lab NN --only', () => {
  it('When a student runs one check by its id, Then only it runs, it passes, and the lesson result file is not written [test:only-runs-one-check]', {
    timeout: 120_000,
  }, () => {
    const run = lab('--only', 'export-runs-after-202');
    expect(run.status, run.stdout).toBe(0);
    expect(run.stdout).toContain('Only 1 of 7 checks (--only)');
    expect(run.stdout.match(/^✓ pass /gm)).toHaveLength(1);
    expect(run.stdout).toContain('[export-runs-after-202]');
    expect(run.stdout).toMatch(/^1 passed, 0 failed$/m);
    expect(existsSync(join(resultDir, '.lab-result.json'))).toBe(false);
  });

  it('When the id is no check of the lesson, Then it fails and names the ids there are [test:only-unknown-id]', {
    timeout: 120_000,
  }, () => {
    const run = lab('--only', 'no-such-check');
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('No check of lesson 03 has the id "no-such-check"');
    expect(run.stdout).toContain('kill-loses-job');
  });
});
