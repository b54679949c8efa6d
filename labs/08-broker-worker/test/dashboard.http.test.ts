import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardServer, type DashboardServer } from '../src/server.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const queueName = uniqueQueueName('dashboard');
let server: DashboardServer;

beforeAll(async () => {
  server = await startDashboardServer({ queueNames: [queueName] });
});
afterAll(async () => {
  await server?.close();
  await obliterateQueues([queueName]);
});

describe('the dashboard', () => {
  it('When /admin/queues is opened, Then Bull Board answers 200 with an HTML page', async () => {
    const res = await fetch(`${server.url}/admin/queues`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toMatch(/<html/i);
  });

  it('When its API is asked for the queues, Then it lists the queue, read-only', async () => {
    const res = await fetch(`${server.url}/admin/queues/api/queues`);
    const body = (await res.json()) as { queues: Array<{ name: string; readOnlyMode: boolean }> };
    expect(body.queues.map((q) => q.name)).toEqual([queueName]);
    expect(body.queues[0]?.readOnlyMode).toBe(true);
  });

  it('When / is opened, Then it redirects to the dashboard', async () => {
    const res = await fetch(`${server.url}/`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/admin/queues');
  });
});
