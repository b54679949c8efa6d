// Lesson 13's API at its edges, in this process against a fresh database: a Client-Id that
// is not a name, a full service (503 + Retry-After, nothing created; refused before the body
// is read, or by the gate with the early refusal off), an Idempotency-Key replay while full
// (the earlier job, nothing created), a missing product (the gate's
// counter untouched, in both gate designs), and the shape of GET /backlog. Nobody listens
// to the nudges here: the events just wait, and the jobs stay queued (they fill the gate).
import { connect } from 'node:net';
import type { RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRaw } from '@tasks-lab/01-state-machine/hostile-input';
import type { RunningServer } from '@tasks-lab/01-state-machine';
import type { AdmissionRules } from '../src/admission.ts';
import type { Backlog } from '../src/backlog.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { countActiveJobs, readGateCounter } from '../src/gate.ts';
import { FAST_QUEUE } from '../src/options.ts';
import { startServer } from '../src/server.ts';

let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase('routehttp');
}, 60_000);
afterAll(() => db?.drop());

/** Every job and every outbox event, and the gate's counter: a refusal must change none of them. Parameters: none. */
const COUNT_ROWS = 'SELECT (SELECT COUNT(*) FROM export_jobs) AS jobs, (SELECT COUNT(*) FROM export_outbox) AS events';

async function rowsAndGate(): Promise<{ jobs: number; events: number; gate: number }> {
  const [rows] = await db.pool.query<RowDataPacket[]>(COUNT_ROWS);
  return { jobs: Number(rows[0]?.jobs), events: Number(rows[0]?.events), gate: await readGateCounter(db.pool) };
}

async function withApi<T>(rules: Partial<AdmissionRules>, work: (api: RunningServer) => Promise<T>): Promise<T> {
  const api = await startServer(0, {
    pool: db.pool,
    nudge: async () => 0,
    rules,
    onAdmission: () => {},
    log: () => {},
  });
  try {
    return await work(api);
  } finally {
    await api.close();
  }
}

const JSON_TYPE = { 'content-type': 'application/json' };
const body = (productIds: number[]) => JSON.stringify({ product_ids: productIds });

const postExport = (url: string, productIds: number[], headers: Record<string, string> = {}) =>
  fetch(`${url}/exports`, { method: 'POST', headers: { ...JSON_TYPE, ...headers }, body: body(productIds) });

/** A service with exactly as many places as there are active jobs now: the next admission is refused. */
async function fullRules(): Promise<Partial<AdmissionRules>> {
  let active = await countActiveJobs(db.pool);
  if (active === 0) {
    await withApi({}, (api) => postExport(api.url, [1]));
    active = await countActiveJobs(db.pool);
  }
  return { admissionLimit: active };
}

/**
 * POST /exports with this Client-Id written byte for byte on a raw socket: node's own HTTP
 * client refuses to send control characters, and the server's parser is part of the test.
 */
function postWithRawClientId(url: string, clientId: string): Promise<number> {
  const { hostname, port } = new URL(url);
  const payload = body([1]);
  const request =
    `POST /exports HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n` +
    `Client-Id: ${clientId}\r\nConnection: close\r\n\r\n${payload}`;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(Buffer.from(request, 'latin1')));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
  });
}

describe('POST /exports: the Client-Id header', () => {
  it('When the Client-Id is too long, holds a space, a tab or a non-ASCII byte, Then the answer is 400 invalid-client-id and no row is written [test:bad-client-id-no-row]', async () => {
    await withApi({}, async (api) => {
      const before = await rowsAndGate();
      const bad = {
        'too long': 'c'.repeat(65),
        'a space': 'acme corp',
        'a tab': 'acme\tcorp',
        'a non-ASCII byte': 'caf\u00e9',
        empty: '',
      };
      for (const [what, clientId] of Object.entries(bad)) {
        // node:http sends the value as written (latin1 bytes): fetch would refuse some of them.
        const answer = await sendRaw(api.url, '/exports', {
          method: 'POST',
          headers: { ...JSON_TYPE, 'Client-Id': clientId },
          body: body([1]),
        });
        expect(answer.status, `${what}: ${answer.text.slice(0, 120)}`).toBe(400);
        expect(answer.headers['content-type'], what).toMatch(/^application\/json/);
        expect((answer.json as { error?: string }).error, what).toBe('invalid-client-id');
      }
      expect(await rowsAndGate()).toEqual(before);
      // The control: a well-formed name is admitted.
      const good = await postExport(api.url, [1], { 'Client-Id': 'acme-42' });
      expect(good.status).toBe(202);
    });
  });

  it('When the Client-Id holds a control character (DEL, 0x01), Then the server refuses the request (400) before any handler, and no row is written [test:control-char-client-id-no-row]', async () => {
    await withApi({}, async (api) => {
      const before = await rowsAndGate();
      for (const clientId of ['acme\u007fcorp', 'acme\u0001corp']) {
        expect(await postWithRawClientId(api.url, clientId), JSON.stringify(clientId)).toBe(400);
      }
      expect(await rowsAndGate()).toEqual(before);
    });
  });
});

describe('POST /exports: a full service', () => {
  it('When the service is full, Then the answer is 503 with Retry-After: 5 and a JSON body, and no job, event or gate entry is left [test:full-service-503-no-row]', async () => {
    const rules = await fullRules();
    await withApi(rules, async (api) => {
      const before = await rowsAndGate();
      const answer = await postExport(api.url, [2]);
      const refusal = (await answer.json()) as { error: string; message: string };
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(refusal.error).toBe('capacity-exceeded');
      expect(refusal.message).toMatch(/full/);
      expect(answer.headers.get('location')).toBeNull();
      expect(await rowsAndGate()).toEqual(before);
    });
  });

  it('When an Idempotency-Key is replayed while the service is full, Then the answer is still 202 with the original job, Idempotent-Replayed: true, and nothing is created [test:replay-while-full-202]', async () => {
    const key = `routehttp-${Date.now()}`;
    const first = await withApi({}, async (api) => {
      const answer = await postExport(api.url, [3, 4], { 'Idempotency-Key': key });
      expect(answer.status).toBe(202);
      return (await answer.json()) as { id: string };
    });
    const rules = await fullRules();
    await withApi(rules, async (api) => {
      const before = await rowsAndGate();
      const replay = await postExport(api.url, [3, 4], { 'Idempotency-Key': key });
      const again = (await replay.json()) as { id: string; status: string };
      expect(replay.status).toBe(202);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(again.id).toBe(first.id);
      expect(again.status).toBe('queued');
      // The same service, a new key: full, as the replay did not change.
      expect((await postExport(api.url, [3, 4], { 'Idempotency-Key': `${key}-new` })).status).toBe(503);
      expect(await rowsAndGate()).toEqual(before);
    });
  });

  it("When the service is full and the body is not even JSON, Then the early refusal answers 503 before the body is read; with it off (the course's), the body is read first and refused 400 [test:early-refusal-before-body]", async () => {
    const rules = await fullRules();
    const sendBroken = (url: string) =>
      fetch(`${url}/exports`, { method: 'POST', headers: JSON_TYPE, body: '{"product_ids": [1,' });
    await withApi({ ...rules, earlyRefusal: 'on' }, async (api) => {
      const answer = await sendBroken(api.url);
      expect(answer.status).toBe(503);
      expect(((await answer.json()) as { error: string }).error).toBe('capacity-exceeded');
    });
    await withApi({ ...rules, earlyRefusal: 'off' }, async (api) => {
      const answer = await sendBroken(api.url);
      expect(answer.status).toBe(400);
    });
  });

  it("When the early refusal is off (the course's), Then a full service is still answered 503 capacity-exceeded with Retry-After, by the gate, and nothing is created [test:full-service-503-under-the-lock]", async () => {
    const rules = await fullRules();
    await withApi({ ...rules, earlyRefusal: 'off' }, async (api) => {
      const before = await rowsAndGate();
      const answer = await postExport(api.url, [2]);
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      expect(((await answer.json()) as { error: string }).error).toBe('capacity-exceeded');
      expect(await rowsAndGate()).toEqual(before);
    });
  });
});

describe('POST /exports: a missing product', () => {
  for (const admissionGate of ['counter', 'count'] as const) {
    it(`When a product does not exist (${admissionGate} gate), Then the answer is 422 and the gate counter, the jobs and the events are unchanged [test:missing-product-gate-unchanged]`, async () => {
      await withApi({ admissionGate }, async (api) => {
        const before = await rowsAndGate();
        const answer = await postExport(api.url, [1, 987654]);
        const refusal = (await answer.json()) as { error: string };
        expect(answer.status).toBe(422);
        expect(refusal.error).toBe('missing-products');
        expect(await rowsAndGate()).toEqual(before);
        expect(before.gate).toBe(await countActiveJobs(db.pool));
      });
    });
  }
});

describe('GET /backlog', () => {
  it('When jobs wait, Then GET /backlog answers their count and oldest age per status and per queue, the unsent events per queue and the gate counter [test:backlog-shape]', async () => {
    await withApi({}, async (api) => {
      await postExport(api.url, [5]);
      const active = await countActiveJobs(db.pool);
      const answer = await fetch(`${api.url}/backlog`);
      const backlog = (await answer.json()) as Backlog;
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(backlog).sort()).toEqual(['byQueue', 'byStatus', 'gateCounter', 'unpublished']);
      // Nobody runs a worker or a publisher here: every job is queued, every event unsent, all of them fast.
      expect(backlog.byStatus).toEqual([{ status: 'queued', jobs: active, oldestAgeSeconds: expect.any(Number) }]);
      expect(backlog.byQueue).toEqual([
        { queueName: FAST_QUEUE, status: 'queued', jobs: active, oldestAgeSeconds: expect.any(Number) },
      ]);
      expect(backlog.unpublished).toEqual([
        { queueName: FAST_QUEUE, events: active, oldestAgeSeconds: expect.any(Number) },
      ]);
      expect(backlog.byStatus[0]!.oldestAgeSeconds).toBeGreaterThan(0);
      expect(backlog.gateCounter).toBe(active);
    });
  });
});
