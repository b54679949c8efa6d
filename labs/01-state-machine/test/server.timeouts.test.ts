// A client that announces a body and sends nothing, or never finishes its headers: the server
// answers a JSON 408 soon after its timeout (Node's own answer was a bare 408 after five
// minutes), closes the connection, and goes on serving with nothing lost. In this process
// with the timeouts as options, then as `pnpm start` with them in the environment. Only upper
// bounds on time are asserted, generously, and the lower bound the server cannot beat (no 408
// before its timeout: a loaded machine answers late, never early).
import { HTTP_TIMEOUT_OPTIONS, startTsProcess, stallRequest, waitFor, withResources } from '@tasks-lab/lab-kit';
import { expectJsonTimeout } from '@tasks-lab/lab-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchApi, postJson, request, SERVER_SCRIPT } from '../scripts/api-process.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import { MemoryJobStore } from '../src/store.ts';

const TIMEOUTS = { requestTimeoutMs: 1500, headersTimeoutMs: 500 };

describe('server: request and header timeouts (in this process)', () => {
  const store = new MemoryJobStore();
  const logged: string[] = [];
  let api: RunningServer;
  beforeAll(async () => {
    api = await startServer(0, { store, log: (line) => logged.push(line) }, TIMEOUTS);
  });
  afterAll(() => api?.close());

  it('When a POST announces a 100-byte body and sends none, Then a JSON 408 arrives soon after the request timeout, the connection closes, and nothing is lost [test:body-timeout-json-408]', async () => {
    const before = await postJson(`${api.url}/exports`, JSON.stringify({ product_ids: [1] }));
    expect(before.status).toBe(202);
    const jobs = await store.count();

    const logStart = logged.length;
    expectJsonTimeout(await stallRequest(api.url, { stall: 'body' }), TIMEOUTS.requestTimeoutMs);
    // The body parser, still waiting, learns that the connection closed: one line that says so.
    const lines = await waitFor(
      'the log line of the cut request',
      () => logged.length > logStart && logged.slice(logStart),
    );
    expect(lines).toEqual(['400 request-aborted POST /exports: The connection closed before the request body arrived']);

    expect(await store.count(), 'the stalled POST created no job').toBe(jobs);
    expect((await request(`${api.url}${before.headers.get('location')}`)).status).toBe(200);
    expect((await postJson(`${api.url}/exports`, JSON.stringify({ product_ids: [2] }))).status).toBe(202);
  });

  it('When the headers never finish, Then a JSON 408 arrives soon after the headers timeout and the connection closes [test:headers-timeout-json-408]', async () => {
    expectJsonTimeout(await stallRequest(api.url, { stall: 'headers' }), TIMEOUTS.headersTimeoutMs);
    expect((await postJson(`${api.url}/exports`, JSON.stringify({ product_ids: [3] }))).status).toBe(202);
  });
});

describe('server: request and header timeouts (pnpm start)', () => {
  it('When HTTP_REQUEST_TIMEOUT_MS and HTTP_HEADERS_TIMEOUT_MS are set, Then the process times a stalled body out by them, in JSON, and keeps serving', async () => {
    await withResources(undefined, async (res) => {
      const { url } = await launchApi(res, { env: HTTP_TIMEOUT_OPTIONS.toEnv(TIMEOUTS) });
      expectJsonTimeout(await stallRequest(url, { stall: 'body' }), TIMEOUTS.requestTimeoutMs);
      expect((await postJson(`${url}/exports`, JSON.stringify({ product_ids: [1] }))).status).toBe(202);
    });
  });

  it('When the headers timeout is longer than the request timeout, Then it refuses to start, naming both variables', async () => {
    await withResources(undefined, async (res) => {
      const env = { PORT: '0', HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '2000' };
      const server = res.add(startTsProcess(SERVER_SCRIPT, { env }), (p) => p.kill());
      expect(await server.exited).toEqual({ code: 1, signal: null });
      expect(server.output()).toContain(
        'HTTP_HEADERS_TIMEOUT_MS (2000) must not be longer than HTTP_REQUEST_TIMEOUT_MS (1000)',
      );
    });
  });
});
