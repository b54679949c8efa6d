// `pnpm lab watch 01`: grades lesson 01's exercise at once, then again when the file is saved, on
// file events and, forced, by polling (what it falls back to where no event arrives). The "save"
// writes the file's own bytes back, so the exercise a student or another test reads is unchanged.
// The grades go to a temporary folder (TASKS_LAB_RESULT_DIR).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findLab, REPO_ROOT } from '../src/labs.ts';
import { findLesson } from '../src/lessons.ts';

const resultDir = mkdtempSync(join(tmpdir(), 'watch-result-'));
afterAll(() => rmSync(resultDir, { recursive: true, force: true }));

const lab = findLab(findLesson('01')!)!;
const exerciseFile = join(lab.dir, lab.exercise!.file);
const GRADE = /^✗ Not yet\. Save the file to grade it again/gm;

/** Runs `pnpm lab watch 01 [...]`, saves the exercise after the first grade, and stops after the second. */
async function watchTwoGrades(extra: string[]): Promise<string> {
  const child = spawn('pnpm', ['--silent', 'lab', 'watch', '01', ...extra], {
    cwd: REPO_ROOT,
    env: { ...process.env, TASKS_LAB_RESULT_DIR: resultDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let saved = false;
  const done = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const grades = output.match(GRADE)?.length ?? 0;
      if (grades === 1 && !saved) {
        saved = true;
        writeFileSync(exerciseFile, readFileSync(exerciseFile));
      }
      if (grades >= 2) resolve();
    });
    child.on('close', () => resolve());
  });
  await done;
  child.kill('SIGINT');
  await new Promise((resolve) => child.once('close', resolve));
  return output;
}

describe('pnpm lab watch', () => {
  it('When the student saves the exercise, Then it is graded again [test:watch-regrades-on-save]', {
    timeout: 90_000,
  }, async () => {
    const output = await watchTwoGrades([]);
    expect(output.match(GRADE)).toHaveLength(2);
    expect(output).toContain('(on each save)');
  });

  it('When it polls (--poll forces the fallback used where no file event arrives), Then the screen says so and a save is still graded again [test:watch-polls]', {
    timeout: 90_000,
  }, async () => {
    const output = await watchTwoGrades(['--poll']);
    expect(output).toContain('polling it every 500 ms, as asked');
    expect(output.match(GRADE)).toHaveLength(2);
  });
});
