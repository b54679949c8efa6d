// Real timers and a real child process: the limits are tested as they run.
import { UnrecoverableError } from 'bullmq';
import { isAlive, sleep } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { CRAWL_CHILD_SCRIPT } from '../src/crawl-job.ts';
import {
  HARD_TIME_LIMIT_EXCEEDED,
  SOFT_TIME_LIMIT_EXCEEDED,
  runWithHardTimeLimit,
  withSoftTimeLimit,
} from '../src/time-limits.ts';

describe('time-limits: soft limit', () => {
  it('When cooperative work overruns, Then its signal aborts, its cleanup runs, and it fails unrecoverably [test:soft-limit-aborts-signal]', async () => {
    let cleanedUp = false;
    const work = withSoftTimeLimit(100, async (signal) => {
      try {
        await sleep(10_000, signal);
      } finally {
        cleanedUp = true;
      }
    });
    await expect(work).rejects.toThrow(SOFT_TIME_LIMIT_EXCEEDED);
    await expect(work).rejects.toBeInstanceOf(UnrecoverableError);
    await expect(work).rejects.toMatchObject({ name: 'SoftTimeLimitError', code: 'soft-time-limit' });
    expect(cleanedUp).toBe(true);
  });

  it('When work ends within the limit, Then its result comes back', async () => {
    await expect(withSoftTimeLimit(5000, async () => 'done')).resolves.toBe('done');
  });

  it('When work fails for its own reason before the limit, Then that error is kept', async () => {
    await expect(withSoftTimeLimit(5000, async () => Promise.reject(new Error('source down')))).rejects.toThrow(
      'source down',
    );
  });
});

describe('time-limits: hard limit', () => {
  it('When the child blocks its event loop, Then the watchdog kills it and the pid is gone [test:hard-limit-kills-child-process]', async () => {
    let pid = 0;
    const run = runWithHardTimeLimit({
      script: CRAWL_CHILD_SCRIPT,
      args: ['block', '100'],
      limitMs: 1500,
      onStart: (p) => void (pid = p),
    });
    await expect(run).rejects.toThrow(HARD_TIME_LIMIT_EXCEEDED);
    await expect(run).rejects.toMatchObject({ name: 'HardTimeLimitError', code: 'hard-time-limit' });
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid)).toBe(false);
  });

  it('When the child finishes in time, Then the run succeeds', async () => {
    await expect(
      runWithHardTimeLimit({ script: CRAWL_CHILD_SCRIPT, args: ['finish', '5000'], limitMs: 15_000 }),
    ).resolves.toBeUndefined();
  });
});
