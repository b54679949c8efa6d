import { describe, expect, it } from 'vitest';
import { idempotent, withResources } from '../src/resources.ts';

describe('withResources', () => {
  it('When the scope ends, Then resources close last-first, even when the work throws', async () => {
    const closed: string[] = [];
    await expect(
      withResources(undefined, async (res) => {
        res.add('queue', (name) => closed.push(name));
        res.defer(() => closed.push('worker'));
        throw new Error('scenario failed');
      }),
    ).rejects.toThrow('scenario failed');
    expect(closed).toEqual(['worker', 'queue']);
  });

  it('When the signal aborts mid-work, Then resources close at once, so a pending await can fail', async () => {
    const controller = new AbortController();
    const closed: string[] = [];
    const work = withResources(controller.signal, async (res) => {
      const never = new Promise<void>((_resolve, reject) => res.defer(() => reject(new Error('connection closed'))));
      res.defer(() => closed.push('process'));
      await never;
    });
    controller.abort(new Error('time is up'));
    await expect(work).rejects.toThrow('connection closed');
    expect(closed).toEqual(['process']);
  });

  it('When a clean-up step fails, Then the others still run', async () => {
    const closed: string[] = [];
    await withResources(undefined, async (res) => {
      res.defer(() => closed.push('first'));
      res.defer(() => {
        throw new Error('cannot close');
      });
    });
    expect(closed).toEqual(['first']);
  });
});

describe('idempotent', () => {
  it('When close is called twice, Then the work runs once and both calls get the same promise', async () => {
    let closes = 0;
    const close = idempotent(async () => {
      closes += 1;
    });
    const [a, b] = [close(), close()];
    expect(a).toBe(b);
    await a;
    expect(closes).toBe(1);
  });
});

describe('waitFor', () => {
  it('When the signal aborts while the probe keeps failing, Then the wait stops at once with the reason', async () => {
    const { waitFor } = await import('../src/time.ts');
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('check timed out')), 50);
    const started = Date.now();
    await expect(
      waitFor('a job that never finishes', () => Promise.reject(new Error('redis down')), {
        timeoutMs: 10_000,
        signal: controller.signal,
      }),
    ).rejects.toThrow('check timed out');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
