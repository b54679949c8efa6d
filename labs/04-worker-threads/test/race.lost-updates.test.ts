import { describe, expect, it } from 'vitest';
import { runIncrementRace } from '../src/race.ts';

describe('runIncrementRace (real worker threads)', () => {
  it('When two threads read, pause and write a shared counter without the lock, Then updates are lost', async () => {
    const race = await runIncrementRace({ locked: false, incrementsPerThread: 50 });
    expect(race.expected).toBe(100);
    expect(race.counter).toBeLessThan(100);
    expect(race.lost).toBe(100 - race.counter);
    expect(race.exitCodes).toEqual([0, 0]);
  });

  it('When each increment holds the lock, Then the count is exact', async () => {
    const race = await runIncrementRace({ locked: true, incrementsPerThread: 50, threads: 3 });
    expect(race.counter).toBe(150);
    expect(race.exitCodes).toEqual([0, 0, 0]);
  });
});
