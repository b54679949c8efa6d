// Grades the try-it-yourself exercise: solutions/placement.ts by default,
// exercise/placement.ts with LAB_EXERCISE=student (pnpm lab 07 --exercise).
import { loadExercise } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';

const { choosePlacement } = await loadExercise<typeof import('../solutions/placement.ts')>(import.meta.url, 'placement.ts');

describe('choosePlacement', () => {
  it('When a 3 s synchronous SDK call must survive an API restart, Then it goes through a task queue and runs on a worker thread', () => {
    const placement = choosePlacement({ waitsOn: 'blocking-call', mustSurviveRestart: true });
    expect(placement.delivery).toBe('task-queue');
    expect(placement.executor).toBe('worker-thread');
  });

  it('When that SDK call is queued, Then it still needs a timeout, an idempotency key and durable job state', () => {
    const { safeguards } = choosePlacement({ waitsOn: 'blocking-call', mustSurviveRestart: true });
    expect([...safeguards].sort()).toEqual(['durable-job-state', 'idempotency-key', 'timeout']);
  });

  it('When network reads only need to finish within the request, Then they stay on the event loop, delivered directly, with a timeout', () => {
    expect(choosePlacement({ waitsOn: 'awaitable-io', mustSurviveRestart: false })).toEqual({
      delivery: 'direct',
      executor: 'event-loop',
      safeguards: ['timeout'],
    });
  });

  it('When CPU-bound scoring must survive a restart, Then a queue delivers it to a separate process, with an idempotency key and durable state', () => {
    const placement = choosePlacement({ waitsOn: 'cpu', mustSurviveRestart: true });
    expect(placement.delivery).toBe('task-queue');
    expect(placement.executor).toBe('separate-process');
    expect([...placement.safeguards].sort()).toEqual(['durable-job-state', 'idempotency-key']);
  });

  it('When work need not survive a restart, Then no queue and no queue safeguards are added', () => {
    for (const waitsOn of ['awaitable-io', 'blocking-call', 'cpu'] as const) {
      const placement = choosePlacement({ waitsOn, mustSurviveRestart: false });
      expect(placement.delivery).toBe('direct');
      expect(placement.safeguards).not.toContain('idempotency-key');
      expect(placement.safeguards).not.toContain('durable-job-state');
    }
  });
});
