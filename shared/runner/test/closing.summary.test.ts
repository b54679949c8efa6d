import { describe, expect, it } from 'vitest';
import {
  closingSection,
  failedChecks,
  failedTests,
  failedWalkSteps,
  formatElapsed,
  MAX_FAILURE_LINES,
  type RunTotals,
} from '../src/closing.ts';

const clean: RunTotals = {
  tests: { passed: 643, failed: 0 },
  checks: { passed: 92, failed: 0 },
  exercises: { passed: 20, failed: 0 },
  coverage: { passed: 10, failed: 0 },
  walks: { passed: 400, failed: 0, notWalked: 3 },
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
    expect(lines.at(-1)).toBe('1178 passed, 0 failed');
    expect(lines).toContain('lesson walks:     400 passed, 0 failed (steps; 3 marked not walked)');
  });

  it('When lint found errors, Then the lint line says how many and they count as failures; warnings do not', () => {
    const clean2 = closingSection({ ...clean, lint: { errors: 0, warnings: 57 } });
    expect(clean2.lines).toContain('lint:             no errors, 57 warning(s) (pnpm lint)');
    expect(clean2.failed).toBe(0);
    const broken = closingSection({ ...clean, lint: { errors: 2, warnings: 0 } });
    expect(broken.lines).toContain('lint:             2 error(s), 0 warning(s) (pnpm lint)');
    expect(broken.failed).toBe(2);
  });

  it('When the run timed its parts, Then the time line names each part beside the total', () => {
    const phases = [
      { name: 'turbo', ms: 541_000 },
      { name: 'walks', ms: 190_400 },
      { name: 'soak', ms: 22_900 },
    ];
    const { lines } = closingSection({ ...clean, phases });
    expect(lines.at(-2)).toBe('time:             12m 34s (turbo 9m 01s, walks 3m 10s, soak 22.9s)');
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
    expect(lines.at(-1)).toBe('1177 passed, 6 failed');
  });

  it('When a walk step failed, Then it is named with its lesson, step and doc line, and the steps not run after it are not', () => {
    const result = {
      doc: 'docs/11-mysql-leases.md',
      steps: [
        { index: 4, line: 120, outcome: 'passed', observed: 'exit 0' },
        {
          index: 5,
          line: 152,
          outcome: 'failed',
          observed: 'expected (docs/11-mysql-leases.md:155): "status": "succeeded",\n    seen:  "status": "running",',
        },
        { index: 6, line: 160, outcome: 'not run', observed: 'not run: an earlier step failed' },
      ],
      problems: ['docs/11-mysql-leases.md: terminal A still runs `pnpm worker` at the end'],
    };
    expect(failedWalkSteps('11', result)).toEqual([
      'walk 11 step 5 (docs/11-mysql-leases.md:152): expected (docs/11-mysql-leases.md:155): "status": "succeeded",',
      'walk 11: docs/11-mysql-leases.md: terminal A still runs `pnpm worker` at the end',
    ]);
    const { failed } = closingSection({ ...clean, walks: { passed: 4, failed: 2, notWalked: 0 } });
    expect(failed).toBe(2);
  });

  it('When a duration is printed, Then it reads as seconds, minutes or hours', () => {
    expect(formatElapsed(8_420)).toBe('8.4s');
    expect(formatElapsed(61_000)).toBe('1m 01s');
    expect(formatElapsed(3_723_000)).toBe('1h 02m 03s');
  });

  it('When a test or a check failed, Then the closing section names it (CI often shows only the tail of the run) [test:test-all-names-failures]', () => {
    const one = closingSection({
      ...clean,
      tests: { passed: 642, failed: 1 },
      failures: ['@tasks-lab/16-observability test test/flow.test.ts › When x, Then y: expected 1 to be 2'],
    });
    expect(one.lines[0]).toBe(
      'failed: @tasks-lab/16-observability test test/flow.test.ts › When x, Then y: expected 1 to be 2',
    );
    const many = closingSection({
      ...clean,
      failures: Array.from({ length: MAX_FAILURE_LINES + 5 }, (_, i) => `p test t › case ${i}: why`),
    });
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
            {
              title: 'When b fails',
              status: 'failed',
              failureMessages: ['\nAssertionError: expected 1 to be 2\n    at flow.test.ts:3:1'],
            },
          ],
        },
        {
          name: '/repo/labs/16-observability/test/broken.test.ts',
          message: 'Error: Cannot find module x',
          assertionResults: [],
        },
      ],
    };
    expect(failedTests('lab16', '/repo/labs/16-observability', report)).toEqual([
      'lab16 test test/flow.test.ts › When b fails: AssertionError: expected 1 to be 2',
      'lab16 test test/broken.test.ts: Error: Cannot find module x',
    ]);
    const result = {
      passed: 1,
      failed: 1,
      finishedAt: '2026-12-01T00:00:00Z',
      results: [
        { id: 'a', ok: true },
        { id: 'b', ok: false, observed: 'x'.repeat(300) },
      ],
    };
    const [line, ...rest] = failedChecks('lab12', result);
    expect(rest).toEqual([]);
    expect(line).toMatch(/^lab12 verify b: x+…$/);
    expect(line!.length).toBeLessThan(230);
  });
});
