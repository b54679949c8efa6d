import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { loadExercise } from '@tasks-lab/lab-kit';
import { MemoryJobStore } from '@tasks-lab/01-state-machine';

const { TaskTracker } = await loadExercise<typeof import('../solutions/observe-failure.ts')>(
  import.meta.url,
  'observe-failure.ts',
);

describe('exercise: observe a failing task', () => {
  it('When the work throws 100 ms after it starts, Then the failure is recorded and logged with the job id, the job is failed, and nothing is left running [test:exercise-observe-failure]', async () => {
    const store = new MemoryJobStore();
    const logged: string[] = [];
    const tracker = new TaskTracker(store, (line) => logged.push(line));
    const job = await store.create([1, 2]);

    const task = tracker.start(job.id, async () => {
      await store.transition(job.id, 'running');
      await delay(100);
      throw new Error('drill');
    });
    expect(tracker.running.size).toBe(1);
    await task;

    expect(tracker.failures).toEqual([{ jobId: job.id, message: 'drill' }]);
    expect(logged.some((line) => line.includes(job.id) && line.includes('drill'))).toBe(true);
    expect(await store.require(job.id)).toMatchObject({ state: 'failed', error: 'drill' });
    expect(tracker.running.size).toBe(0);
  });

  it('When the work succeeds, Then nothing is recorded and nothing is left running [test:exercise-success-leaves-nothing]', async () => {
    const store = new MemoryJobStore();
    const tracker = new TaskTracker(store, () => {});
    const job = await store.create([1, 2]);

    await tracker.start(job.id, async () => {
      await store.transition(job.id, 'running');
      await delay(10);
      await store.transition(job.id, 'succeeded', { result: { rows: 2 } });
    });

    expect(tracker.failures).toEqual([]);
    expect((await store.require(job.id)).state).toBe('succeeded');
    expect(tracker.running.size).toBe(0);
  });
});
