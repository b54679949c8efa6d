// Lesson 01's request and header timeouts on the dashboard server. The dashboard is read-only:
// it refuses a POST with 405 at once, without reading the body it announced, so the connection
// still waits for that body; the request timeout then ends it with a JSON 408 (Node's own answer
// was a bare 408 after five minutes). A client that never finishes its headers gets the 408
// alone. Either way the connection closes, the queue is untouched, and the dashboard keeps
// serving. Only upper bounds on time are asserted, generously, and the lower bound the server
// cannot beat (no 408 before its timeout).
import { stallRequest } from '@tasks-lab/lab-kit';
import { expectJsonTimeout } from '@tasks-lab/lab-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportsAddress } from '../src/broker.ts';
import { openQueue } from '../src/queue-layer.ts';
import { startDashboardServer, type DashboardServer } from '../src/server.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const TIMEOUTS = { requestTimeoutMs: 1500, headersTimeoutMs: 500 };
const queueName = uniqueQueueName('timeouts');
let server: DashboardServer;

beforeAll(async () => {
  server = await startDashboardServer({ queueNames: [queueName], httpTimeouts: TIMEOUTS });
});
afterAll(async () => {
  await server?.close();
  await obliterateQueues([queueName]);
});

async function jobCounts() {
  const queue = await openQueue<unknown, unknown, string>(exportsAddress(queueName));
  try {
    return await queue.getJobCounts();
  } finally {
    await queue.close();
  }
}

describe('the dashboard: request and header timeouts', () => {
  it('When a POST announces a 100-byte body and sends none, Then the 405 comes at once, a JSON 408 soon after the request timeout, the connection closes, and the queue is untouched [test:body-timeout-json-408]', async () => {
    const before = await jobCounts();
    const exchange = await stallRequest(server.url, {
      stall: 'body',
      path: `/admin/queues/api/queues/${queueName}/add`,
    });
    expectJsonTimeout(exchange, TIMEOUTS.requestTimeoutMs, [405]);
    expect(exchange.answers[0]?.json).toMatchObject({ error: 'method-not-allowed' });
    expect(await jobCounts()).toEqual(before);
    expect((await fetch(`${server.url}/admin/queues/api/queues`)).status).toBe(200);
  });

  it('When the headers never finish, Then a JSON 408 arrives soon after the headers timeout and the connection closes [test:headers-timeout-json-408]', async () => {
    expectJsonTimeout(
      await stallRequest(server.url, { stall: 'headers', method: 'GET', path: '/admin/queues' }),
      TIMEOUTS.headersTimeoutMs,
    );
    expect((await fetch(`${server.url}/admin/queues/api/queues`)).status).toBe(200);
  });
});
