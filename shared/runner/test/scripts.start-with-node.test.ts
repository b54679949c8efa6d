// Every lab process starts as `node --import tsx <file>`, the way launchProcess starts it in the
// checks. The tsx CLI wraps the process in a second one that, on Ctrl-C, waits ~30 ms, signals
// again and then SIGKILLs its child: a busy worker's graceful close never runs.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/labs.ts';

function manifests(): string[] {
  const inGroup = (group: string) =>
    readdirSync(join(REPO_ROOT, group))
      .map((name) => join(REPO_ROOT, group, name, 'package.json'))
      .filter((path) => existsSync(path));
  return [
    join(REPO_ROOT, 'package.json'),
    ...inGroup('labs'),
    ...inGroup('shared'),
    join(REPO_ROOT, 'perf', 'package.json'),
  ];
}

/** Scripts that run a TypeScript file through the tsx CLI (`tsx file.ts`, `pnpm tsx ...`, `npx tsx ...`). */
function tsxCliScripts(scripts: Record<string, string>): string[] {
  return Object.entries(scripts)
    .filter(([, command]) => /(^|[\s;&|])(?<!--import\s)tsx\s/.test(command))
    .map(([name, command]) => `${name}: ${command}`);
}

describe('how package scripts start TypeScript', () => {
  it('When a script runs a .ts file with the tsx CLI, Then it is named; node --import tsx is accepted', () => {
    expect(
      tsxCliScripts({
        a: 'tsx src/worker.ts',
        b: 'node --import tsx src/worker.ts',
        c: 'vitest run',
        d: 'npx tsx x.ts',
      }),
    ).toEqual(['a: tsx src/worker.ts', 'd: npx tsx x.ts']);
  });

  it.each(manifests().map((path) => [relative(REPO_ROOT, path), path]))(
    'When %s starts a TypeScript file, Then it uses node --import tsx',
    (_name, path) => {
      const { scripts = {} } = JSON.parse(readFileSync(path, 'utf8')) as { scripts?: Record<string, string> };
      expect(tsxCliScripts(scripts)).toEqual([]);
    },
  );

  it('When pnpm runs a script, Then it runs it under bash (dash dies on a Ctrl-C its child survives)', () => {
    expect(readFileSync(join(REPO_ROOT, 'pnpm-workspace.yaml'), 'utf8')).toMatch(/^scriptShell: \/bin\/bash$/m);
  });
});
