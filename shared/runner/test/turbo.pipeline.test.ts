import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/labs.ts';
import { turboRunArgs } from '../src/turbo-run.ts';

interface DryTask {
  taskId: string;
  dependencies: string[];
}

/** `pnpm test`'s own turbo command, as a dry run: the plan on stdout, turbo's remarks on stderr. */
function dryRun(): { tasks: DryTask[]; stderr: string } {
  const run = spawnSync('pnpm', turboRunArgs(['--dry=json']), {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
  });
  expect(run.status, run.stderr).toBe(0);
  return { tasks: (JSON.parse(run.stdout) as { tasks: DryTask[] }).tasks, stderr: run.stderr };
}

describe('turbo pipeline', () => {
  it("When lab N-1 changes, Then lab N's test and verify re-run (they depend on lab N-1's typecheck hash)", () => {
    const { tasks } = dryRun();
    const labs = [
      ...new Set(tasks.map((t) => t.taskId.split('#')[0] ?? '').filter((id) => /^@tasks-lab\/\d\d-/.test(id))),
    ].sort();
    expect(labs.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < labs.length; i++) {
      for (const task of ['test', 'verify']) {
        const entry = tasks.find((t) => t.taskId === `${labs[i]}#${task}`);
        expect(entry?.dependencies, `${labs[i]}#${task}`).toContain(`${labs[i - 1]}#typecheck`);
      }
    }
  }, 60_000);

  it('When pnpm test runs turbo, Then turbo prints no warning (no deprecated flag or setting) [test:turbo-no-warnings]', () => {
    const { stderr } = dryRun();
    const warnings = stderr.split('\n').filter((line) => /WARNING|deprecated/i.test(line));
    expect(warnings).toEqual([]);
  }, 60_000);
});
