import { describe, expect, it } from 'vitest';
import { closingSection, formatElapsed, type RunTotals } from '../src/closing.ts';

const clean: RunTotals = {
  tests: { passed: 643, failed: 0 },
  checks: { passed: 92, failed: 0 },
  exercises: { passed: 20, failed: 0 },
  coverage: { passed: 10, failed: 0 },
  soak: { passed: 13, failed: 0 },
  leakedSecrets: 0,
  leftovers: [],
  missing: [],
  turboStatus: 0,
  elapsedMs: 754_300,
};

describe('closing section of pnpm test', () => {
  it('When pnpm test ends, Then the closing section says how long it took, just before the N passed, N failed line [test:test-all-prints-duration]', () => {
    const { lines } = closingSection(clean);
    expect(lines.at(-2)).toBe('time:             12m 34s');
    expect(lines.at(-1)).toBe('778 passed, 0 failed');
  });

  it('When something failed, Then every kind of failure counts in the closing line', () => {
    const { lines, failed } = closingSection({
      ...clean,
      tests: { passed: 642, failed: 1 },
      leakedSecrets: 2,
      leftovers: [{ pid: 4242, command: 'node --import tsx src/worker.ts' }],
      missing: ['@tasks-lab/08-broker-worker: its verify did not report in this run'],
      turboStatus: 1,
    });
    expect(failed).toBe(1 + 2 + 1 + 1 + 1);
    expect(lines).toContain('left running: pid 4242 node --import tsx src/worker.ts');
    expect(lines.at(-1)).toBe('777 passed, 6 failed');
  });

  it('When a duration is printed, Then it reads as seconds, minutes or hours', () => {
    expect(formatElapsed(8_420)).toBe('8.4s');
    expect(formatElapsed(61_000)).toBe('1m 01s');
    expect(formatElapsed(3_723_000)).toBe('1h 02m 03s');
  });
});
