// `pnpm lab NN --only <id>` and the rerun line: a failed check is followed by the one command that
// runs it again, with the option variables and fault points this run had; --only picks checks by
// id and names the ids there are when one is unknown.
import { describe, expect, it } from 'vitest';
import { fail, pass, rerunCommand, runChecks, selectChecks, type Check } from '../src/checks.ts';
import { declaredOptionNames, defineOptions, wholeNumber } from '../src/options.ts';

// A definition like a lab's: loading it declares LAB_KIT_TEST_LEASE_MS.
defineOptions({ leaseMs: wholeNumber('LAB_KIT_TEST_LEASE_MS', 30_000, { min: 1, max: 100_000 }) });

const checks: Check[] = [
  { id: 'first-check', name: 'first', run: () => pass('fine') },
  { id: 'second-check', name: 'second', run: () => fail('expected 3, saw 2') },
];

describe('--only and the rerun line', () => {
  it('When a check fails, Then its line is followed by the command that reruns it alone; a passing check has none [test:failed-check-rerun-line]', async () => {
    const lines: string[] = [];
    await runChecks(checks, (line) => lines.push(line), { rerun: (id) => `pnpm -w lab 07 --only ${id}` });
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^✓ pass {2}first/);
    expect(lines[1]).toMatch(/^✗ FAIL {2}second/);
    expect(lines[2]).toBe('    rerun: pnpm -w lab 07 --only second-check');
  });

  it('When the run had option variables and fault points set, Then the rerun command sets them again, quoted where a shell needs it, and nothing else [test:rerun-keeps-settings]', () => {
    expect(declaredOptionNames()).toContain('LAB_KIT_TEST_LEASE_MS');
    const env = {
      LAB_KIT_TEST_LEASE_MS: '1000',
      LAB_FAULTS: 'before-chunk:delay-800:always',
      USE_COURSE_TIMINGS: '',
      HOME: '/root',
      TASKS_LAB_ONLY: 'x',
      PATH: '/usr/bin',
    };
    expect(rerunCommand('15', 'cancel-stops-export', env)).toBe(
      'LAB_FAULTS=before-chunk:delay-800:always LAB_KIT_TEST_LEASE_MS=1000 pnpm -w lab 15 --only cancel-stops-export',
    );
    expect(rerunCommand('15', 'x', { LAB_FAULTS: "a b'c" })).toBe(`LAB_FAULTS='a b'\\''c' pnpm -w lab 15 --only x`);
  });

  it('When --only names checks, Then those run in the lab order; an unknown id is reported, not ignored [test:only-selects-checks]', () => {
    expect(selectChecks(checks, undefined).selected).toHaveLength(2);
    expect(selectChecks(checks, 'second-check, first-check').selected.map((c) => c.id)).toEqual([
      'first-check',
      'second-check',
    ]);
    expect(selectChecks(checks, 'second-check,nope')).toMatchObject({ unknown: ['nope'] });
  });
});
