import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '@tasks-lab/lab-kit';
import { startBackgroundServer, type RunningBackgroundServer } from '../src/server.ts';

let running: RunningBackgroundServer | undefined;
afterEach(async () => {
  await running?.drainAndClose();
  running = undefined;
});

async function post(url: string, body: string, contentType = 'application/json') {
  const response = await fetch(`${url}/exports/background`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: response.status, location: response.headers.get('location'), body: (await response.json()) as Record<string, unknown> };
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
});
