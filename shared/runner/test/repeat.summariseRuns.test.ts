import { describe, expect, it } from 'vitest';
import type { CheckReport } from '@tasks-lab/lab-kit';
import { summariseRuns } from '../src/repeat.ts';

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
});
