import { describe, expect, it } from 'vitest';
import { closingSection, failedChecks, failedTests, formatElapsed, MAX_FAILURE_LINES, type RunTotals } from '../src/closing.ts';

const clean: RunTotals = {
  tests: { passed: 643, failed: 0 },
  checks: { passed: 92, failed: 0 },
  exercises: { passed: 20, failed: 0 },
  coverage: { passed: 10, failed: 0 },
  soak: { passed: 13, failed: 0 },
  leakedSecrets: 0,
  leftovers: [],
  missing: [],
  failures: [],
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

  it('When a test or a check failed, Then the closing section names it (CI often shows only the tail of the run) [test:test-all-names-failures]', () => {
    const one = closingSection({ ...clean, tests: { passed: 642, failed: 1 }, failures: ['@tasks-lab/16-observability test test/flow.test.ts › When x, Then y: expected 1 to be 2'] });
    expect(one.lines[0]).toBe('failed: @tasks-lab/16-observability test test/flow.test.ts › When x, Then y: expected 1 to be 2');
    const many = closingSection({ ...clean, failures: Array.from({ length: MAX_FAILURE_LINES + 5 }, (_, i) => `p test t › case ${i}: why`) });
    expect(many.lines.filter((line) => line.startsWith('failed: '))).toHaveLength(MAX_FAILURE_LINES + 1);
    expect(many.lines[MAX_FAILURE_LINES]).toBe('failed: … and 5 more (see above)');
  });

  it("When vitest's report and a verify's result hold failures, Then each becomes one line with its package, file or check, and the first line of why", () => {
    const report = {
      numPassedTests: 1,
      numFailedTests: 1,
      testResults: [
        {
          name: '/repo/labs/16-observability/test/flow.test.ts',
          message: '',
          assertionResults: [
            { title: 'When a passes', status: 'passed', failureMessages: [] },
            { title: 'When b fails', status: 'failed', failureMessages: ['\nAssertionError: expected 1 to be 2\n    at flow.test.ts:3:1'] },
          ],
        },
        { name: '/repo/labs/16-observability/test/broken.test.ts', message: 'Error: Cannot find module x', assertionResults: [] },
      ],
    };
    expect(failedTests('lab16', '/repo/labs/16-observability', report)).toEqual([
      'lab16 test test/flow.test.ts › When b fails: AssertionError: expected 1 to be 2',
      'lab16 test test/broken.test.ts: Error: Cannot find module x',
    ]);
    const result = { passed: 1, failed: 1, finishedAt: '2026-12-01T00:00:00Z', results: [{ id: 'a', ok: true }, { id: 'b', ok: false, observed: 'x'.repeat(300) }] };
    const [line, ...rest] = failedChecks('lab12', result);
    expect(rest).toEqual([]);
    expect(line).toMatch(/^lab12 verify b: x+…$/);
    expect(line!.length).toBeLessThan(230);
  });
});
