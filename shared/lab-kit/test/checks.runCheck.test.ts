import { describe, expect, it } from 'vitest';
import { fail, formatSummary, pass, runCheck, runChecks } from '../src/checks.ts';

describe('runCheck', () => {
  it('When a check throws, Then it is a failed check with the error as the observation', async () => {
    const result = await runCheck({
      name: 'throws',
      run: () => {
        throw new Error('boom');
      },
    });
    expect(result).toMatchObject({ ok: false, observed: 'threw: boom' });
  });

  it('When a check hangs past its time limit, Then it fails instead of hanging the verify', async () => {
    const result = await runCheck({ name: 'hangs', run: () => new Promise(() => {}), timeoutMs: 50 });
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/no answer within 50 ms/);
  });
});

describe('runChecks', () => {
  it('When one of two checks fails, Then the summary says 1 passed, 1 failed', async () => {
    const lines: string[] = [];
    const report = await runChecks(
      [
        { name: 'good', run: () => pass('fine') },
        { name: 'bad', run: () => fail('not fine') },
      ],
      (line) => lines.push(line),
    );
    expect(formatSummary(report)).toBe('1 passed, 1 failed');
    expect(lines[0]).toMatch(/^✓ pass {2}good — observed: fine$/);
    expect(lines[1]).toMatch(/^✗ FAIL {2}bad — observed: not fine$/);
  });
});
