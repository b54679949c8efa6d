// `pnpm lab check-exercises NN --repeat N`: the same exercise graded N times, and any check whose
// outcome varied named; lesson 01's exercise needs no service and grades in a second or two.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/labs.ts';

const lab = (...args: string[]) =>
  spawnSync('pnpm', ['--silent', 'lab', ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 100_000 });

describe('pnpm lab check-exercises --repeat', () => {
  it("When lesson 01's exercise is checked twice, Then both rounds are reported and both checks are stable [test:check-exercises-repeat]", {
    timeout: 120_000,
  }, () => {
    const run = lab('check-exercises', '01', '--repeat', '2');
    expect(run.status, run.stdout).toBe(0);
    expect(run.stdout).toContain('Checking 1 exercise(s) 2 times');
    expect(run.stdout.match(/^ {2}run \d\/2: 2 passed, 0 failed$/gm)).toHaveLength(2);
    expect(run.stdout).toContain('[exercise-01-untouched-fails] — passed in all 2 runs');
    expect(run.stdout).toMatch(/^2 stable, 0 varying, 0 always failing$/m);
  });

  it('When --repeat is given no count of at least 2, Then it is a usage error (exit 2) [test:check-exercises-repeat-usage]', () => {
    const run = lab('check-exercises', '01', '--repeat', '1');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--repeat takes a whole number from 2 to 100.');
  });
});
