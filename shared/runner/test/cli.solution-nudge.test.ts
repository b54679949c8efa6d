// `pnpm lab NN --solution` is a nudge, not a lock: before the student's own exercise passed it
// points to the hint and to `--force`; with `--force`, or once the exercise passed, it shows the
// reference answer; an instructor's setting turns the wait off. Results go to a temporary folder.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { findLab, REPO_ROOT } from '../src/labs.ts';
import { findLesson } from '../src/lessons.ts';
import { solutionNudgeOn, writeExerciseResult } from '../src/progress.ts';

const resultDir = mkdtempSync(join(tmpdir(), 'nudge-result-'));
afterAll(() => rmSync(resultDir, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
});

const lab = (args: string[], env: Record<string, string> = {}) =>
  spawnSync('pnpm', ['--silent', 'lab', '01', ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 100_000,
    env: { ...process.env, TASKS_LAB_RESULT_DIR: resultDir, TASKS_LAB_SOLUTION_NUDGE: '', ...env },
  });

describe('pnpm lab NN --solution', () => {
  it('When the student has not passed the exercise, Then --solution points to the hint and --force instead of the answer [test:solution-nudge-before-pass]', {
    timeout: 60_000,
  }, () => {
    const run = lab(['--solution']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('has not passed yet');
    expect(run.stdout).toContain('pnpm -w lab 01 --hint');
    expect(run.stdout).toContain('pnpm -w lab 01 --solution --force');
    expect(run.stdout).not.toContain('Reference answer');
  });

  it('When --force is given, or the setting is off, or the exercise passed, Then the reference answer is shown and graded [test:solution-after-pass-or-force]', {
    timeout: 120_000,
  }, () => {
    expect(lab(['--solution', '--force']).stdout).toMatch(/Reference answer: .*solutions\/terminal\.ts/);
    expect(lab(['--solution'], { TASKS_LAB_SOLUTION_NUDGE: 'off' }).stdout).toContain('Reference answer:');
    vi.stubEnv('TASKS_LAB_RESULT_DIR', resultDir);
    writeExerciseResult(findLab(findLesson('01')!)!, true);
    const run = lab(['--solution']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Reference answer: .*solutions\/terminal\.ts/);
  });

  it('When the setting is read, Then the environment wins, else the root package.json, else on [test:solution-nudge-setting]', () => {
    expect(solutionNudgeOn({ TASKS_LAB_SOLUTION_NUDGE: 'off' })).toBe(false);
    expect(solutionNudgeOn({ TASKS_LAB_SOLUTION_NUDGE: 'on' })).toBe(true);
    expect(solutionNudgeOn({})).toBe(true);
  });
});
