// The lesson's producer puts and closes; it times nothing. Timing each put is the
// try-it-yourself exercise, so the lab's own code must not already hold its answer.
import { describe, expect, it } from 'vitest';
import { runThreadedBatch } from '../src/batch.ts';

describe("the lesson's producer", () => {
  it('When it feeds a full queue, Then the queue counts the blocked puts and the producer reports no timings: the exercise is not answered by src [test:src-producer-times-nothing]', async () => {
    const report = await runThreadedBatch({ ids: [1, 2, 3, 4, 5, 6], capacity: 1, workMs: 20, failingIds: [] });

    expect(report.putTimings).toEqual([]);
    expect(report.blockedPuts).toBeGreaterThan(0);
    expect(report.done).toBe(6);
  });
});
