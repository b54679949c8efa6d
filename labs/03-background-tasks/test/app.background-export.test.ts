import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '@tasks-lab/lab-kit';
import { MemoryJobStore, startServer } from '@tasks-lab/01-state-machine';
import { sendRaw } from '@tasks-lab/01-state-machine/hostile-input';
import { backgroundExportRoutes } from '../src/app.ts';
import { startBackgroundServer, type RunningBackgroundServer } from '../src/server.ts';
import { TaskRegistry } from '../src/task-registry.ts';

let running: RunningBackgroundServer | undefined;
afterEach(async () => {
  await running?.drainAndClose();
  running = undefined;
});

async function post(url: string, body: string, contentType = 'application/json', path = '/exports/background') {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return {
    status: response.status,
    location: response.headers.get('location'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

describe('POST /exports/background (real HTTP server in this process)', () => {
  it('When an export is submitted, Then the 202 says queued and polling reaches succeeded with 2 rows', async () => {
    running = await startBackgroundServer(0, { exportWorkMs: 200, log: () => {} });
    const answer = await post(running.url, JSON.stringify({ product_ids: [1, 2] }));
    expect(answer.status).toBe(202);
    expect(answer.body.status).toBe('queued');
    expect(answer.location).toBe(`/exports/${answer.body.id}`);

    const url = running.url;
    const final = await waitFor('succeeded', async () => {
      const body = (await (await fetch(`${url}${answer.location}`)).json()) as Record<string, unknown>;
      return body.status === 'succeeded' && body;
    });
    expect(final).toMatchObject({ terminal: true, result: { rows: 2 }, error: null });
    expect(running.registry.size).toBe(0);
  });

  it('When the body is invalid, Then the answer is 422 and no task is started', async () => {
    running = await startBackgroundServer(0, { log: () => {} });
    const answer = await post(running.url, JSON.stringify({ product_ids: [] }));
    expect(answer.status).toBe(422);
    expect(running.registry.size).toBe(0);
    expect(await running.store.count()).toBe(0);
  });

  it('When the body is not JSON, Then the answer is 415 and no job is created', async () => {
    running = await startBackgroundServer(0, { log: () => {} });
    const answer = await post(running.url, 'product_ids=1', 'application/x-www-form-urlencoded');
    expect(answer.status).toBe(415);
    expect(await running.store.count()).toBe(0);
  });

  it('When the server drains while an export runs, Then the export finishes within the grace period', async () => {
    running = await startBackgroundServer(0, { exportWorkMs: 200, shutdownGraceMs: 5_000, log: () => {} });
    const answer = await post(running.url, JSON.stringify({ product_ids: [1, 2] }));
    const jobId = String(answer.body.id);
    await waitFor('running', async () => (await running!.store.require(jobId)).state === 'running');
    const report = await running.drainAndClose();
    expect(report).toEqual({ finishedInGrace: 1, cancelled: 0, remaining: 0 });
    expect((await running.store.require(jobId)).state).toBe('succeeded');
    running = undefined;
  });

  it('When the export fails after the 202, Then the 202 stands and the job shows failed with the error [test:failure-shown-on-job-not-http]', async () => {
    const store = new MemoryJobStore();
    const logged: string[] = [];
    const registry = new TaskRegistry(store, { log: (line) => logged.push(line) });
    const failing = async () => {
      await delay(50);
      throw new Error('product 2 could not be read');
    };
    const server = await startServer(0, {
      store,
      log: () => {},
      extendRoutes: backgroundExportRoutes({ registry, work: failing }),
    });
    try {
      const answer = await post(server.url, JSON.stringify({ product_ids: [1, 2] }));
      expect(answer.status).toBe(202);
      expect(answer.body.status).toBe('queued');
      const job = await waitFor('failed', async () => {
        const body = (await (await fetch(`${server.url}${answer.location}`)).json()) as Record<string, unknown>;
        return body.status === 'failed' && body;
      });
      expect(job).toMatchObject({ terminal: true, error: 'product 2 could not be read', result: null });
      expect(logged).toContain(`[registry] job ${String(answer.body.id)} failed: product 2 could not be read`);
    } finally {
      await registry.shutdown();
      await server.close();
    }
  });

  it('When a job is submitted through POST /exports, Then nothing runs it: only /exports/background starts work [test:accept-only-route-stays-queued]', async () => {
    running = await startBackgroundServer(0, { exportWorkMs: 20, log: () => {} });
    const answer = await post(running.url, JSON.stringify({ product_ids: [1] }), 'application/json', '/exports');
    expect(answer.status).toBe(202);
    await delay(300);
    expect(running.registry.size).toBe(0);
    expect((await running.store.require(String(answer.body.id))).state).toBe('queued');
  });

  it('When the server starts draining, Then it closes the entrance first: a new submit is refused while the running export finishes [test:drain-closes-entrance-first]', async () => {
    running = await startBackgroundServer(0, { exportWorkMs: 1_000, shutdownGraceMs: 10_000, log: () => {} });
    const url = running.url;
    const answer = await post(url, JSON.stringify({ product_ids: [1, 2] }));
    const jobId = String(answer.body.id);
    await waitFor('running', async () => (await running!.store.require(jobId)).state === 'running');
    const drained = running.drainAndClose();
    // A new connection (node:http, not the fetch pool that still holds the submit's socket).
    const late = sendRaw(url, '/exports/background', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ product_ids: [3] }),
    });
    await expect(late).rejects.toThrow(/ECONNREFUSED/);
    expect((await running.store.require(jobId)).state).toBe('running');
    expect(await drained).toEqual({ finishedInGrace: 1, cancelled: 0, remaining: 0 });
    expect((await running.store.require(jobId)).state).toBe('succeeded');
    expect(await running.store.count()).toBe(1);
    running = undefined;
  });
});
