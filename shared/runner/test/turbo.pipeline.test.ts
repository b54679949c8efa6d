import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/labs.ts';

interface DryTask {
  taskId: string;
  dependencies: string[];
}

function dryRun(): DryTask[] {
  const json = execFileSync('pnpm', ['exec', 'turbo', 'run', 'test', 'verify', '--dry=json'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
  });
  return (JSON.parse(json) as { tasks: DryTask[] }).tasks;
}

describe('turbo pipeline', () => {
  it("When lab N-1 changes, Then lab N's test and verify re-run (they depend on lab N-1's typecheck hash)", () => {
    const tasks = dryRun();
    const labs = [...new Set(tasks.map((t) => t.taskId.split('#')[0] ?? '').filter((id) => /^@tasks-lab\/\d\d-/.test(id)))].sort();
    expect(labs.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < labs.length; i++) {
      for (const task of ['test', 'verify']) {
        const entry = tasks.find((t) => t.taskId === `${labs[i]}#${task}`);
        expect(entry?.dependencies, `${labs[i]}#${task}`).toContain(`${labs[i - 1]}#typecheck`);
      }
    }
  }, 60_000);
});
