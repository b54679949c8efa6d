// Integration: real worker processes on the lab's Redis, really SIGKILLed.
import { describe, expect, it } from 'vitest';
import { crashAfterRename, poisonJob } from '../scripts/scenarios.ts';

describe('export worker redelivery', () => {
  it('When the worker dies after the rename, Then a second process runs the job and the stall re-run is not counted in attemptsMade', { timeout: 90_000 }, async () => {
    const e = await crashAfterRename();

    expect(e.stateAfterCrash).toBe('active');
    expect(e.executions.map((x) => x.pid)).toEqual([e.firstWorkerPid, e.secondWorkerPid]);
    // The second start is BullMQ's second start, but not a "made" attempt: a stall is not an error.
    expect(e.executions.map((x) => [x.attemptsStarted, x.attemptsMade])).toEqual([
      [1, 0],
      [2, 0],
    ]);
    expect(e.finalState).toBe('completed');
    expect(e.finalDigest).toBe(e.digestAfterCrash);
  });

  it('When maxStalledCount is 0, Then one crash fails the job: it is never re-run', { timeout: 90_000 }, async () => {
    const e = await poisonJob(undefined, { maxStalledCount: 0, maxWorkers: 3 });

    expect(e.finalState).toBe('failed');
    expect(e.failedReason).toBe('job stalled more than allowable limit');
    expect(e.executions).toBe(1);
  });
});
