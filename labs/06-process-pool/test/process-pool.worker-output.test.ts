// What a failing worker writes to stderr is kept by the pool and reported in the error,
// not printed over the parent's output. Each case runs a small script as its own process
// and reads everything that process (and its worker) printed.
import { startTsProcess } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';

const script = new URL('./fixtures/start-with-missing-scorer.ts', import.meta.url).pathname;

async function printedBy(poolKind: 'pipe' | 'inherit'): Promise<string[]> {
  const proc = startTsProcess(script, { args: [poolKind] });
  await proc.waitForOutput(/^done$/m, 30_000);
  await proc.exited;
  return proc.output().trim().split('\n');
}

describe('a worker that cannot start, seen from the terminal', () => {
  it("When a worker cannot import its scorer, Then the only line printed is the error, which ends with the worker's own reason [test:worker-errors-captured]", {
    timeout: 40_000,
  }, async () => {
    const lines = await printedBy('pipe');

    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^start failed: worker process \d+ exited \(code 1\) before it was ready: Cannot find module '.*missing-scorer\.ts'/,
    );
    expect(lines[1]).toBe('done');
  });

  it('When the pool lets workers write to the terminal (the old way), Then a stray line appears and the error does not say why [test:inherited-stderr-leaks]', {
    timeout: 40_000,
  }, async () => {
    const lines = await printedBy('inherit');

    expect(lines.filter((line) => /^Cannot find module '.*missing-scorer\.ts'/.test(line))).toHaveLength(1);
    expect(lines).toContainEqual(
      expect.stringMatching(/^start failed: worker process \d+ exited \(code 1\) before it was ready$/),
    );
  });
});
