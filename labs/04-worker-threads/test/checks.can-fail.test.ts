// Each key check is run against a deliberately broken variant and must report a failure.
import { describe, expect, it } from 'vitest';
import { runCheck, type Check } from '@tasks-lab/lab-kit';
import { runIncrementRace } from '../src/race.ts';
import { buildChecks, type CheckDeps } from '../scripts/checks.ts';

const fixture = (file: string) => new URL(`./fixtures/${file}`, import.meta.url);

async function runNamed(deps: CheckDeps, startsWith: string) {
  const check = buildChecks(deps).find((c: Check) => c.name.startsWith(startsWith));
  if (!check) throw new Error(`no check named "${startsWith}..."`);
  return runCheck(check);
}

describe('checks can fail', () => {
  it('When the race runs without the lock, Then "with the lock, the count is exact" fails', async () => {
    const result = await runNamed({ raceWithLock: () => runIncrementRace({ locked: false }) }, 'with the lock');
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/without the lock: counter \d+ of 200/);
  });

  it('When the race runs with the lock, Then "without the lock, increments are lost" fails', async () => {
    const result = await runNamed({ raceWithoutLock: () => runIncrementRace({ locked: true }) }, 'drill: without the lock');
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('counter 200 of 200');
  });

  it('When the queue has capacity 8, Then "the queue never holds more than 4 ids" fails', async () => {
    const result = await runNamed({ capacity: 8 }, 'the queue never holds');
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('peak queue length 8');
  });

  it('When a consumer swallows the error, Then "the errors match the failing id" and the total both fail', async () => {
    const deps = { consumerEntry: fixture('swallowing-consumer-thread.ts') };
    const checks = buildChecks(deps);
    const [total, errorsMatch] = [checks[0]!, checks[1]!];
    const errorsResult = await runCheck(errorsMatch);
    const totalResult = await runCheck(total);
    expect(errorsResult.ok).toBe(false);
    expect(errorsResult.observed).toContain('errors none');
    expect(totalResult.ok).toBe(false);
    expect(totalResult.observed).toContain('done 19 + failed 0 = 19');
  });

  it('When a consumer does its slow work while holding the lock, Then "the slow work runs outside the lock" fails', async () => {
    const result = await runNamed({ consumerEntry: fixture('work-inside-lock-consumer-thread.ts') }, 'the slow work');
    expect(result.ok).toBe(false);
    const overlapMs = Number(result.observed.match(/same time for (\d+) ms/)?.[1]);
    expect(overlapMs).toBeLessThan(100);
  });
});
