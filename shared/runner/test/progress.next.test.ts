// The student's progress: `pnpm lab next` names the first lesson whose checks or exercise have not
// passed, with what to read and what to run; the bar counts lessons done; `pnpm lab NN --exercise`
// remembers its grade where `pnpm lab` reads it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { findLab } from '../src/labs.ts';
import { findLesson } from '../src/lessons.ts';
import {
  formatNext,
  formatProgress,
  progressBar,
  readExerciseResult,
  writeExerciseResult,
  type LessonProgress,
} from '../src/progress.ts';
import { REPO_ROOT } from '../src/labs.ts';

const lesson = (number: string, checksPassed: boolean, exercisePassed?: boolean): LessonProgress => ({
  number,
  title: `Lesson ${number}`,
  doc: `docs/${number}-x.md`,
  checksPassed,
  exercisePassed,
  exerciseFile: exercisePassed === undefined ? undefined : `labs/${number}-x/exercise/answer.ts`,
});

const resultDir = mkdtempSync(join(tmpdir(), 'progress-result-'));
afterAll(() => rmSync(resultDir, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('pnpm lab next', () => {
  it("When the first lesson's checks have not passed, Then next names it, its doc and pnpm lab NN [test:next-first-unpassed-checks]", () => {
    const lines = formatNext([lesson('01', false, false), lesson('02', false)]);
    expect(lines[0]).toBe('Next: lesson 01, Lesson 01');
    expect(lines).toContain('  read  docs/01-x.md');
    expect(lines.join('\n')).toMatch(/run {3}pnpm lab 01 /);
  });

  it('When a lesson passed its checks but not its exercise, Then next sends the student to the exercise, hint first [test:next-exercise-after-checks]', () => {
    const lines = formatNext([lesson('01', true, true), lesson('02', true, false), lesson('03', false)]);
    expect(lines[0]).toBe('Next: lesson 02, Lesson 02');
    expect(lines.join('\n')).toContain('labs/02-x/exercise/answer.ts');
    expect(lines.join('\n')).toContain('pnpm lab 02 --hint');
    expect(lines.join('\n')).toContain('pnpm lab 02 --exercise');
  });

  it('When every lesson is done, Then next says so and the bar is full [test:next-all-done]', () => {
    const all = [lesson('01', true, true), lesson('02', true)];
    expect(formatNext(all)[0]).toBe('Every lesson passed, with its exercise.');
    expect(formatProgress(all)).toContain(progressBar(2, 2));
    expect(formatProgress(all)).toContain("2 of 2 lessons' checks passed, 1 of 1 exercises solved");
  });

  it('When progress is drawn, Then the bar fills in proportion: 0, a quarter, all [test:progress-bar]', () => {
    expect(progressBar(0, 16)).toBe(`[${'-'.repeat(20)}]`);
    expect(progressBar(4, 16)).toBe(`[${'#'.repeat(5)}${'-'.repeat(15)}]`);
    expect(progressBar(16, 16)).toBe(`[${'#'.repeat(20)}]`);
  });

  it('When an exercise grade is written, Then it is read back for that lab (the folder TASKS_LAB_RESULT_DIR names) [test:exercise-result-remembered]', () => {
    const lab = findLab(findLesson('03')!)!;
    vi.stubEnv('TASKS_LAB_RESULT_DIR', resultDir);
    expect(readExerciseResult(lab)).toBeUndefined();
    writeExerciseResult(lab, true);
    expect(readExerciseResult(lab)).toMatchObject({ lesson: '03', passed: true });
  });

  it('When a student runs pnpm lab next and pnpm lab, Then both exit 0 and show the progress line [test:next-and-list-run]', {
    timeout: 60_000,
  }, () => {
    for (const args of [['lab', 'next'], ['lab']]) {
      const run = spawnSync('pnpm', ['--silent', ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 50_000 });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(
        /^progress \[[#-]{20}\] \d+ of 16 lessons' checks passed, \d+ of \d+ exercises solved$/m,
      );
    }
  });
});
