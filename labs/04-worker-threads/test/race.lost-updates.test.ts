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

describe('runIncrementRace: stopped from outside', () => {
  it('When the signal aborts mid-race, Then the race rejects at once with the reason instead of running to the end', async () => {
    const caller = new AbortController();
    // 2 x 5000 increments with a 1 ms pause each would run for at least 5 s.
    const race = runIncrementRace({ locked: true, incrementsPerThread: 5_000, signal: caller.signal });
    setTimeout(() => caller.abort(new Error('time is up')), 500);
    const started = Date.now();

    await expect(race).rejects.toThrow('time is up');
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
