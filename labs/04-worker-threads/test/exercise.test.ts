// Grades the try-it-yourself exercise: solutions/producer.ts by default,
// exercise/producer.ts with LAB_EXERCISE=student (pnpm lab 04 --exercise).
import { describe, expect, it } from 'vitest';
import { loadExercise } from '@tasks-lab/lab-kit';
import { runThreadedBatch } from '../src/batch.ts';

const { feedQueue } = await loadExercise<typeof import('../solutions/producer.ts')>(import.meta.url, 'producer.ts');

const WORK_MS = 200;

describe('exercise: a producer that shows it is held back', () => {
  it('When the queue holds 1 id and each read takes 200 ms, Then later puts wait, every id settles and both threads exit [test:exercise-producer-waits]', async () => {
    const ids = [1, 2, 3, 4, 5, 6, 7, 8];
    // A producer that never closes the queue makes the batch time out here instead of hanging.
    const report = await runThreadedBatch({ ids, capacity: 1, workMs: WORK_MS, feed: feedQueue, timeoutMs: 10_000 });

    expect(report.putTimings.map((t) => t.id)).toEqual(ids);
    // The first put finds an empty queue; once both threads are busy and the queue is full,
    // puts wait for a read to finish: 100-200 ms each, depending on how the two threads' reads
    // line up. A quarter of a read is a generous floor on a busy machine.
    expect(report.putTimings[0]!.waitedMs).toBeLessThan(WORK_MS);
    const heldBack = report.putTimings.filter((t) => t.waitedMs >= WORK_MS / 4);
    expect(heldBack.length).toBeGreaterThanOrEqual(2);
    expect(report.peakQueueLength).toBe(1);
    expect(report.done + report.failed).toBe(ids.length);
    expect(report.threads.map((t) => t.exitCode)).toEqual([0, 0]);
  });
});
