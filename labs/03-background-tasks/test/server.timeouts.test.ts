// Lesson 01's request and header timeouts on lesson 03's server: a client that announces a
// body on POST /exports/background and sends nothing gets a JSON 408 soon after the request
// timeout (Node's own answer was a bare 408 after five minutes), its connection is closed, no
// job or background task is started, and the server goes on serving. Only upper bounds on time
// are asserted, generously, and the lower bound the server cannot beat (no 408 before its timeout).
import { stallRequest, waitFor } from '@tasks-lab/lab-kit';
import { expectJsonTimeout } from '@tasks-lab/lab-kit/testing';
import { MemoryJobStore } from '@tasks-lab/01-state-machine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundServer, type RunningBackgroundServer } from '../src/server.ts';

const TIMEOUTS = { requestTimeoutMs: 1500, headersTimeoutMs: 500 };

describe('lesson 03 server: request and header timeouts', () => {
  const store = new MemoryJobStore();
  let running: RunningBackgroundServer;
  beforeAll(async () => {
    running = await startBackgroundServer(0, { store, exportWorkMs: 20, log: () => {}, httpTimeouts: TIMEOUTS });
  });
  afterAll(() => running?.drainAndClose());

  const submit = (productIds: number[]) =>
    fetch(`${running.url}/exports/background`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ product_ids: productIds }),
    });

  it('When POST /exports/background announces a 100-byte body and sends none, Then a JSON 408 arrives soon after the request timeout, the connection closes, and no job or task is started [test:body-timeout-json-408]', async () => {
    const jobs = await store.count();
    expectJsonTimeout(
      await stallRequest(running.url, { stall: 'body', path: '/exports/background' }),
      TIMEOUTS.requestTimeoutMs,
    );
    expect(await store.count(), 'the stalled POST created no job').toBe(jobs);
    expect(running.registry.size, 'no background task runs for it').toBe(0);

    // Still serving: a whole request is accepted and its export runs to the end.
    const answer = await submit([1, 2]);
    expect(answer.status).toBe(202);
    const location = answer.headers.get('location');
    await waitFor('the export after the timeout to succeed', async () => {
      const job = (await (await fetch(`${running.url}${location}`)).json()) as { status?: string };
      return job.status === 'succeeded';
    });
  });

  it('When the headers never finish, Then a JSON 408 arrives soon after the headers timeout and the connection closes [test:headers-timeout-json-408]', async () => {
    expectJsonTimeout(
      await stallRequest(running.url, { stall: 'headers', path: '/exports/background' }),
      TIMEOUTS.headersTimeoutMs,
    );
    expect((await submit([3])).status).toBe(202);
  });
});
