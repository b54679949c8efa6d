import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { countLeakedSecrets } from '../src/credentials.ts';
import { REPO_ROOT } from '../src/settings.ts';

function run(script: string): string {
  return execFileSync('pnpm', ['--silent', script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('pnpm infra:*', () => {
  it('When infra:up and infra:status run, Then both services are healthy and no generated password appears in the output', () => {
    const output = run('infra:up') + run('infra:status');
    expect(output).toMatch(/^redis .*healthy/m);
    expect(output).toMatch(/^mysql .*healthy/m);
    expect(countLeakedSecrets(output)).toBe(0);
  }, 120_000);
});
