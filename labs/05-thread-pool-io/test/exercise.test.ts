import { loadExercise } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';

const { cancelRunningAndQueued } = await loadExercise<typeof import('../solutions/cancel-queued.ts')>(
  import.meta.url,
  'cancel-queued.ts',
);

describe('try it yourself: cancel a running and a queued read', () => {
  it('When one read runs and a second waits, Then only the waiting one can be cancelled and the running one needs its stop flag [test:exercise-cancel-queued]', async () => {
    const report = await cancelRunningAndQueued({ slices: 20, sliceMs: 50 });

    expect(report.runningCancelled).toBe(false);
    expect(report.queuedCancelled).toBe(true);
    expect(report.queuedState).toBe('cancelled');
    expect(report.queuedEverStarted).toBe(false);
    expect(report.firstOutcome.stopped).toBe(true);
    expect(report.firstOutcome.slicesDone).toBeLessThan(20);
  });
});
