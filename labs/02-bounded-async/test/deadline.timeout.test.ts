import { describe, expect, it } from 'vitest';
import { abortableDelay, BatchTimeoutError, withDeadline } from '../src/index.ts';

describe('withDeadline', () => {
  it('When the work finishes inside the budget, Then its value comes back and the signal never fires', async () => {
    let signal: AbortSignal | undefined;
    const value = await withDeadline(1_000, async (s) => {
      signal = s;
      return 42;
    });
    expect(value).toBe(42);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(signal?.aborted).toBe(false);
  });

  it('When the budget runs out, Then the work is aborted and the caller gets "batch timed out after N ms"', async () => {
    const work = withDeadline(50, (signal) => abortableDelay(10_000, signal));
    await expect(work).rejects.toBeInstanceOf(BatchTimeoutError);
    await expect(work).rejects.toThrow('batch timed out after 50 ms');
  });
});
