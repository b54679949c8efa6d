import { describe, expect, it } from 'vitest';
import { barrier } from '../src/time.ts';

describe('barrier', () => {
  it('When it is not yet opened, Then no waiter goes on; when opened, Then every waiter goes on', async () => {
    const gate = barrier();
    const passed: number[] = [];
    const waiters = [1, 2, 3].map(async (n) => {
      await gate.wait;
      passed.push(n);
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(passed).toEqual([]);
    gate.open();
    await Promise.all(waiters);
    expect(passed.sort()).toEqual([1, 2, 3]);
  });
});
