import { describe, expect, it } from 'vitest';
import { failingOn, ProductReadError, simulatedRead } from '../src/index.ts';

describe('simulatedRead', () => {
  it('When nothing aborts it, Then it waits about readDelayMs and returns the product with that id', async () => {
    const started = Date.now();
    const product = await simulatedRead({ readDelayMs: 50 })(7, new AbortController().signal);
    expect(product).toMatchObject({ id: 7, name: 'Product 7' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('When the signal aborts mid-read, Then the read rejects with the abort reason long before its delay is over', async () => {
    const stop = new AbortController();
    const reason = new Error('batch timed out');
    const started = Date.now();
    const read = simulatedRead({ readDelayMs: 10_000 })(1, stop.signal);
    setTimeout(() => stop.abort(reason), 20);
    await expect(read).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('When the signal is already aborted, Then the read does not start', async () => {
    const stop = new AbortController();
    stop.abort(new Error('stopped'));
    await expect(simulatedRead({ readDelayMs: 10 })(1, stop.signal)).rejects.toThrow('stopped');
  });
});

describe('failingOn', () => {
  it('When the bad product is read, Then it fails with a ProductReadError naming it, and other products read normally', async () => {
    const read = failingOn(3, simulatedRead({ readDelayMs: 1 }));
    const signal = new AbortController().signal;
    await expect(read(3, signal)).rejects.toThrow(new ProductReadError(3, 'is not valid (injected fault)'));
    await expect(read(3, signal)).rejects.toThrow('product 3 is not valid (injected fault)');
    expect(await read(4, signal)).toMatchObject({ id: 4 });
  });
});
