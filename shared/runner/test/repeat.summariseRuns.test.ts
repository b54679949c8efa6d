import { describe, expect, it } from 'vitest';
import type { CheckReport } from '@tasks-lab/lab-kit';
import { formatRepeat, rerunCommands, summariseRuns } from '../src/repeat.ts';

const report = (outcomes: Record<string, boolean>): CheckReport => {
  const results = Object.entries(outcomes).map(([name, ok]) => ({
    id: name,
    name: `the ${name} check`,
    ok,
    observed: ok ? 'fine' : 'broken',
    ms: 1,
  }));
  const passed = results.filter((r) => r.ok).length;
  return { results, passed, failed: results.length - passed };
};

describe('summariseRuns', () => {
  it('When a check passes in some runs and fails in others, Then it is reported as varying', () => {
    const summary = summariseRuns([
      report({ steady: true, flaky: true, broken: false }),
      report({ steady: true, flaky: false, broken: false }),
      report({ steady: true, flaky: true, broken: false }),
    ]);
    expect(summary.varying.map((c) => c.id)).toEqual(['flaky']);
    expect(summary.varying[0]).toMatchObject({ passes: 2, failures: 1, failedObservation: 'broken' });
    expect(summary.stablePassing.map((c) => c.id)).toEqual(['steady']);
    expect(summary.stableFailing.map((c) => c.id)).toEqual(['broken']);
  });

  it('When a check is missing from a run (the verify crashed first), Then it counts as varying', () => {
    const summary = summariseRuns([report({ a: true, b: true }), report({ a: true })]);
    expect(summary.varying.map((c) => c.id)).toEqual(['b']);
  });
});

describe('summariseRuns matches runs by check id', () => {
  it('When a check is reworded between runs, Then it is still one check (matched by id)', () => {
    const first = report({ steady: true });
    const second = report({ steady: false });
    const reworded = { ...second, results: second.results.map((r) => ({ ...r, name: 'new wording' })) };
    const summary = summariseRuns([first, reworded]);
    expect(summary.varying.map((c) => c.id)).toEqual(['steady']);
  });

  it('When a check varied, Then its line is followed by the rerun command a failing run printed, with that run settings [test:repeat-prints-rerun]', () => {
    const output = [
      '✗ FAIL  the flaky check [flaky] — observed: broken',
      '    rerun: LAB_FAULTS=before-claim:throw:once pnpm -w lab 15 --only flaky',
      '✓ pass  the steady check [steady] — observed: fine',
    ].join('\n');
    const reruns = rerunCommands(output);
    expect([...reruns]).toEqual([['flaky', 'LAB_FAULTS=before-claim:throw:once pnpm -w lab 15 --only flaky']]);
    const summary = summariseRuns([report({ flaky: false, steady: true }), report({ flaky: true, steady: true })]);
    const lines = formatRepeat(summary, reruns);
    const at = lines.findIndex((line) => line.startsWith('~ VARIES') && line.includes('[flaky]'));
    expect(lines[at + 1]).toBe(
      '    rerun: LAB_FAULTS=before-claim:throw:once pnpm -w lab 15 --only flaky (add --repeat 2 to repeat it alone)',
    );
    expect(lines.some((line) => line.includes('--only steady'))).toBe(false);
  });
});
