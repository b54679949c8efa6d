// Hints come in two stages: `pnpm lab NN --hint` gives a first nudge (a question that points at the
// idea) and names `--hint 2`, which gives the closer hint. Every exercise has both.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { findLab, REPO_ROOT } from '../src/labs.ts';
import { LESSONS } from '../src/lessons.ts';

const lab = (...args: string[]) =>
  spawnSync('pnpm', ['--silent', 'lab', '01', ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 50_000 });

describe('pnpm lab NN --hint', () => {
  it('When a student asks for a hint, Then the first nudge comes first and names --hint 2; --hint 2 gives the closer hint [test:hints-in-stages]', {
    timeout: 60_000,
  }, () => {
    const info = findLab(LESSONS[0]!)!.exercise!;
    const first = lab('--hint');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`A first nudge: ${info.nudge}`);
    expect(first.stdout).toContain('A closer hint: pnpm -w lab 01 --hint 2');
    expect(first.stdout).not.toContain(info.hint);
    const closer = lab('--hint', '2');
    expect(closer.stdout).toContain(`Hint: ${info.hint}`);
  });

  it('When the exercises are read, Then each has a first nudge and a closer hint, and they differ [test:every-exercise-has-two-hints]', () => {
    const exercises = LESSONS.flatMap((lesson) => findLab(lesson)?.exercise ?? []);
    expect(exercises.length).toBe(16);
    for (const exercise of exercises) {
      expect(exercise.nudge?.length ?? 0).toBeGreaterThan(20);
      expect(exercise.nudge).not.toBe(exercise.hint);
    }
  });
});
