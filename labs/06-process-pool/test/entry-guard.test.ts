// The Node cousin of `if __name__ == "__main__"`: importing an entry file (as a test, a
// later lab or a worker would) must not run it. Only the file Node was started with runs main().
import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => vi.restoreAllMocks());

describe('entry points', () => {
  it('When src/compare.ts is imported, Then nothing runs: no scoring, no pool [test:import-starts-nothing]', async () => {
    const log = vi.spyOn(console, 'log');

    const compare = await import('../src/compare.ts');
    await new Promise((resolve) => setTimeout(resolve, 200));

    expect(typeof compare.findScoreDifference).toBe('function');
    expect(log).not.toHaveBeenCalled();
  });
});
