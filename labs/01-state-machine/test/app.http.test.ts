// The Express app on a real HTTP server in this process (port 0), called with fetch.
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, request } from '../scripts/api-process.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import { MemoryJobStore } from '../src/store.ts';
import { sendRaw } from './hostile-input.ts';

describe('app: POST /exports and GET /exports/:id over HTTP', () => {
  const store = new MemoryJobStore();
  const logged: string[] = [];
  let api: RunningServer;

  beforeAll(async () => {
    api = await startServer(0, {
      store,
      log: (line) => logged.push(line),
      // Later labs add routes like this one; it also shows Express 5 catching an async throw.
      extendRoutes: (app) => {
        app.get('/boom', async () => {
          await Promise.resolve();
          throw new Error('database went away');
        });
      },
    });
  });
  afterAll(() => api.close());

  it('When two product ids are submitted, Then the answer is 202 with a queued job and its Location', async () => {
    const answer = await postJson(`${api.url}/exports`, JSON.stringify({ product_ids: [1, 2] }));
    const job = answer.json as { id: string; status: string; terminal: boolean; product_ids: number[] };
    expect(answer.status).toBe(202);
    expect(answer.headers.get('location')).toBe(`/exports/${job.id}`);
    expect(job).toMatchObject({ status: 'queued', terminal: false, product_ids: [1, 2] });
  });

  it('When the Location is fetched, Then the same job comes back, still queued (nothing runs it in lesson 01)', async () => {
    const submitted = await postJson(`${api.url}/exports`, JSON.stringify({ product_ids: [7] }));
    const answer = await request(`${api.url}${submitted.headers.get('location')}`);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual(submitted.json);
  });

  it('When a job is submitted, Then the 202 says accepted, not done: queued, not terminal, no result; only a later GET can say succeeded [test:202-says-accepted-not-done]', async () => {
    const submitted = await postJson(`${api.url}/exports`, JSON.stringify({ product_ids: [1, 2] }));
    expect(submitted.status).toBe(202);
    expect(submitted.json).toMatchObject({ status: 'queued', terminal: false, result: null });
    const { id } = submitted.json as { id: string };
    await store.transition(id, 'running');
    await store.transition(id, 'succeeded', { result: { rows: 2 } });
    expect((await request(`${api.url}/exports/${id}`)).json).toMatchObject({
      status: 'succeeded',
      terminal: true,
      result: { rows: 2 },
    });
  });

  it('When the connection that submitted a job is closed, Then a new connection still finds the job by its id [test:job-id-outlives-connection]', async () => {
    // Connection: close ends the submitting connection with its answer; the id must not depend on it.
    const submitted = await sendRaw(api.url, '/exports', {
      method: 'POST',
      headers: { 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ product_ids: [4] }),
    });
    expect(submitted.headers.connection).toBe('close');
    const { id } = submitted.json as { id: string };
    const later = await sendRaw(api.url, `/exports/${id}`, { headers: { connection: 'close' } });
    expect(later.status).toBe(200);
    expect(later.json).toMatchObject({ id, status: 'queued' });
  });

  it('When nobody moves a job on, Then it stays queued: nothing in lesson 01 runs jobs [test:job-stays-queued]', async () => {
    const submitted = await postJson(`${api.url}/exports`, JSON.stringify({ product_ids: [1] }));
    const { id } = submitted.json as { id: string };
    await delay(500);
    expect((await request(`${api.url}/exports/${id}`)).json).toMatchObject({
      status: 'queued',
      terminal: false,
      result: null,
    });
  });

  it('When the store moves a job on, Then GET shows the new status and terminal', async () => {
    const submitted = await postJson(`${api.url}/exports`, JSON.stringify({ product_ids: [1] }));
    const { id } = submitted.json as { id: string };
    await store.transition(id, 'running');
    await store.transition(id, 'succeeded', { result: { rows: 1 } });
    const answer = await request(`${api.url}/exports/${id}`);
    expect(answer.json).toMatchObject({ status: 'succeeded', terminal: true, result: { rows: 1 } });
  });

  it.each([
    ['an unknown id', '00000000-0000-4000-8000-000000000000', 404, 'job-not-found'],
    ['a malformed id', 'abc', 400, 'invalid-id'],
  ])('When GET asks for %s, Then it answers %i with error %s', async (_label, id, status, code) => {
    const answer = await request(`${api.url}/exports/${id}`);
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject({ error: code, message: expect.any(String) });
  });

  it('When bad bodies are posted, Then each gets its status and nothing is stored', async () => {
    const countBefore = await store.count();
    const cases: [string, string, number][] = [
      ['application/json', '{"product_ids": [1,', 400],
      ['text/plain', '{"product_ids": [1]}', 415],
      ['application/x-www-form-urlencoded', 'product_ids=1', 415],
      ['application/json', '{"product_ids": []}', 422],
      ['application/json', `{"product_ids": [${'1,'.repeat(20_000)}1]}`, 413],
    ];
    for (const [contentType, body, status] of cases) {
      const answer = await postJson(`${api.url}/exports`, body, contentType);
      expect(answer.status, `${contentType} ${body.slice(0, 30)}`).toBe(status);
      expect(answer.json).toMatchObject({ error: 'invalid-body', message: expect.any(String) });
    }
    expect(await store.count()).toBe(countBefore);
  });

  it('When a body has a typo in the field name, Then the 422 lists the unknown key [test:typo-field-named]', async () => {
    const answer = await postJson(`${api.url}/exports`, JSON.stringify({ productIds: [1] }));
    expect(answer.status).toBe(422);
    const messages = (answer.json as { issues: { message: string }[] }).issues.map((i) => i.message).join(' ');
    expect(messages).toContain('productIds');
  });

  it('When a route does not exist, Then the answer is a JSON 404', async () => {
    const answer = await request(`${api.url}/nowhere`);
    expect(answer.status).toBe(404);
    expect(answer.json).toMatchObject({ error: 'not-found' });
  });

  it('When an async handler throws, Then Express 5 passes it to the error middleware: 500, logged, no details leaked [test:async-error-500]', async () => {
    const answer = await request(`${api.url}/boom`);
    expect(answer.status).toBe(500);
    expect(answer.json).toEqual({ error: 'internal', message: 'Something went wrong on the server' });
    expect(logged.join('\n')).toContain('database went away');
  });

  it('When /docs and /openapi.json are fetched, Then Swagger UI and the spec for both routes come back', async () => {
    const docs = await request(`${api.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(docs.text).toMatch(/swagger-ui/i);
    const spec = (await request(`${api.url}/openapi.json`)).json as { paths: Record<string, unknown> };
    expect(Object.keys(spec.paths)).toEqual(['/exports', '/exports/{id}']);
  });
});
