// Every key check of lesson 10 must be able to fail: here each one meets a broken
// variant (real worker processes, real Redis and database) and must report ok: false.
import { runCheck, type Check } from '@tasks-lab/lab-kit';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildChecks, type RetryCheckDeps } from '../scripts/checks.ts';
import { deductWithoutUniqueKey, uncappedDelayMs } from './fixtures/broken-variants.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

function checkNamed(deps: RetryCheckDeps, start: string): Check {
  const check = buildChecks(deps).find((c) => c.name.startsWith(start));
  if (!check) throw new Error(`no check starts with "${start}"`);
  return check;
}

describe('checks.can-fail', () => {
  it('When the backoff has no cap, Then the cap check fails', async () => {
    const result = await runCheck(checkNamed({ backoffDelay: uncappedDelayMs }, 'Backoff waits'));
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/511999/); // retry 10 of an uncapped 1 s base
  });

  it('When jobs are submitted with attempts 5, Then the "exactly 4 times" check fails', async () => {
    const result = await runCheck(checkNamed({ attempts: 5 }, 'A job that always fails'));
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/5 run\(s\)/);
  });

  it('When the worker retries permanent errors, Then the "exactly once" check fails', async () => {
    const result = await runCheck(checkNamed({ workerScript: fixture('worker-retries-everything.ts') }, 'A permanent error'));
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/4 run\(s\)/);
  });

  it('When the worker skips the deadline check, Then the expired-deadline check fails', async () => {
    const result = await runCheck(checkNamed({ workerScript: fixture('worker-no-deadline-check.ts') }, 'An expired deadline'));
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/1 read\(s\)/);
  });

  it('When the worker schedules retries past the deadline, Then the retry-budget check fails', async () => {
    const result = await runCheck(checkNamed({ workerScript: fixture('worker-no-budget-check.ts') }, 'A retry that would overrun'));
    expect(result.ok).toBe(false);
    expect(result.observed).not.toMatch(/insufficient retry budget"/);
  });

  it('When the dedupe log has no unique key, Then the double deduction is detected', async () => {
    const result = await runCheck(checkNamed({ deductOnce: deductWithoutUniqueKey }, 'The same order'));
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/stock 10 -> (?!6)/);
  });
});
