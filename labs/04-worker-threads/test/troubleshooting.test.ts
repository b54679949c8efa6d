// The lesson's troubleshooting entries, reproduced with real threads: the mistake made
// on purpose (a fixture consumer) shows the symptom, the lesson's consumer does not.
import { describe, expect, it } from 'vitest';
import { runThreadedBatch, ThreadedBatchTimeoutError } from '../src/batch.ts';
import { concurrentWorkMs } from '../src/spans.ts';

const fixture = (file: string) => new URL(`./fixtures/${file}`, import.meta.url);

describe('"the batch never finishes"', () => {
  it('When a consumer skips its next "ready" after a failed read, Then the batch waits for that thread until it times out; the lesson consumer settles every id [test:missing-ready-hangs-batch]', async () => {
    const settings = { ids: [1, 2, 3, 4, 5, 6], failingIds: [3], workMs: 10, timeoutMs: 5_000 };

    const broken = runThreadedBatch({
      ...settings,
      consumerEntry: fixture('no-ready-after-failure-consumer-thread.ts'),
    });
    await expect(broken).rejects.toBeInstanceOf(ThreadedBatchTimeoutError);

    const fixed = await runThreadedBatch(settings);
    expect({ done: fixed.done, failed: fixed.failed }).toEqual({ done: 5, failed: 1 });
    expect(fixed.threads.map((t) => t.exitCode)).toEqual([0, 0]);
  });
});

describe('"two threads take as long as one"', () => {
  it('When the slow read runs while the lock is held, Then the threads take turns and 12 reads take 12 read-times; with the read outside the lock they overlap [test:work-inside-lock-serialises]', async () => {
    const settings = { ids: Array.from({ length: 12 }, (_, i) => i + 1), failingIds: [], workMs: 50 };
    const workPhaseMs = (spans: { startedAt: number; endedAt: number }[]) =>
      Math.max(...spans.map((s) => s.endedAt)) - Math.min(...spans.map((s) => s.startedAt));

    const inside = await runThreadedBatch({
      ...settings,
      consumerEntry: fixture('work-inside-lock-consumer-thread.ts'),
    });
    expect(concurrentWorkMs(inside.spans)).toBeLessThan(settings.workMs / 2);
    expect(workPhaseMs(inside.spans)).toBeGreaterThanOrEqual(12 * settings.workMs * 0.95);

    const outside = await runThreadedBatch(settings);
    expect(concurrentWorkMs(outside.spans)).toBeGreaterThanOrEqual(2 * settings.workMs);
  });
});
