import { formatResult } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { judgeRun, parseFailedChecks, parseVerifySummary } from '../src/earlier-labs.ts';

describe('parseVerifySummary', () => {
  it('When the output ends with the runVerify summary, Then it reads both counts', () => {
    const output =
      'Lesson 02: x\n✓ pass  a — observed: 1 passed, 9 failed in text\n\nAll checks passed.\n9 passed, 0 failed\n';
    expect(parseVerifySummary(output)).toEqual({ passed: 9, failed: 0, line: '9 passed, 0 failed' });
  });

  it('When a check line mentions "passed" mid-line, Then only a whole summary line counts', () => {
    expect(parseVerifySummary('✓ pass  x — observed: 3 passed, 1 failed earlier\n')).toBeNull();
  });

  it('When there are several summary lines, Then the last one wins', () => {
    expect(parseVerifySummary('1 passed, 2 failed\n5 passed, 0 failed\n')?.passed).toBe(5);
  });
});

describe('judgeRun', () => {
  it('When the summary has no failures and the exit code is 0, Then the lab passed', () => {
    expect(judgeRun({ passed: 4, failed: 0, line: '' }, 0)).toBe('passed');
  });

  it('When the summary is clean but the process exited 1, Then the lab failed', () => {
    expect(judgeRun({ passed: 4, failed: 0, line: '' }, 1)).toBe('failed');
  });

  it('When zero checks ran, Then the lab does not count as passed', () => {
    expect(judgeRun({ passed: 0, failed: 0, line: '' }, 0)).toBe('failed');
  });

  it('When there is no summary line, Then the status says so', () => {
    expect(judgeRun(null, 0)).toBe('no-summary');
  });
});

describe('parseFailedChecks', () => {
  // The lines come from lab-kit's own formatter, so a change to its format shows here.
  const line = (ok: boolean, name: string, id: string, observed: string) =>
    formatResult({ ok, name, id, observed, ms: 1 });

  it('When two checks failed and one passed, Then the ids of the failed ones are read, in order', () => {
    const output = [
      'Lesson 03: x',
      line(false, 'Drill: SIGKILL [during] a slow export', 'kill-loses-job', 'GET old id -> 200'),
      line(true, 'Shutdown drains', 'sigterm-drains', 'finished'),
      line(false, 'The registry fails a job', 'failing-task-fails-job', 'state running [stuck] — observed: twice'),
      '',
      '1 passed, 2 failed',
    ].join('\n');
    expect(parseFailedChecks(output)).toEqual(['kill-loses-job', 'failing-task-fails-job']);
  });

  it('When every check passed, Then there are no failed ids', () => {
    expect(parseFailedChecks(line(true, 'a', 'a-check', 'fine'))).toEqual([]);
  });
});
