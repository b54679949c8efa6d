// POST /schedule-slots at its edges, in this process against a fresh database: 202 then 200
// for one slot, the slot of a time in another zone, and every refusal of the request itself
// (a time without a zone, both names of a slot or neither, a bad slot key, a body that is not
// an object), each checked to leave no row. Nobody listens to the nudges here: the events
// just wait, and the jobs stay queued.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@tasks-lab/01-state-machine';
import type { AdmissionRules } from '@tasks-lab/13-admission';
import { countRows } from '../scripts/slot-scenarios.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { jobOfSlot } from '../src/schedule-once.ts';
import { startServer } from '../src/server.ts';

let db: FreshDatabase;
let api: RunningServer;
let nudges = 0;
beforeAll(async () => {
  db = await freshDatabase('slothttp');
  api = await startApi({});
}, 60_000);
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

function startApi(rules: Partial<AdmissionRules>): Promise<RunningServer> {
  return startServer(0, {
    pool: db.pool,
    nudge: async () => (nudges += 1),
    rules,
    onAdmission: () => {},
    onSchedule: () => {},
    log: () => {},
  });
}

interface Answer {
  status: number;
  location: string | null;
  retryAfter: string | null;
  body: { status?: string; slot_key?: string; job_id?: string; error?: string; message?: string };
}

async function postSlot(body: unknown, url = api.url): Promise<Answer> {
  const response = await fetch(`${url}/schedule-slots`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return {
    status: response.status,
    location: response.headers.get('location'),
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Answer['body'],
  };
}

/** A slot key of one test's own. */
const drillKey = () => `drill:${randomUUID()}`;

describe('POST /schedule-slots', () => {
  it('When a slot_key is posted twice, Then the first answer is 202 scheduled with Location /exports/<job id>, the second 200 already-scheduled with the same job [test:http-slot-202-then-200]', async () => {
    const slotKey = drillKey();
    const nudgesBefore = nudges;
    const first = await postSlot({ product_ids: [1, 2], slot_key: slotKey });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ status: 'scheduled', slot_key: slotKey, job_id: expect.any(String) });
    expect(first.location).toBe(`/exports/${first.body.job_id}`);
    const again = await postSlot({ product_ids: [1, 2], slot_key: slotKey });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ status: 'already-scheduled', slot_key: slotKey, job_id: first.body.job_id });
    expect(again.location).toBeNull();
    expect(nudges - nudgesBefore).toBe(2);
    // The Location answers: the job is lesson 11's row, queued.
    const job = await fetch(`${api.url}${first.location}`);
    expect(job.status).toBe(200);
    expect(await job.json()).toMatchObject({ id: first.body.job_id, status: 'queued', product_ids: [1, 2] });
  });

  it('When `at` carries +02:00, Then the slot is the UTC minute of that instant [test:http-at-offset-utc-slot]', async () => {
    const answer = await postSlot({ product_ids: [1], at: '2026-03-01T12:00:30+02:00' });
    expect(answer.status).toBe(202);
    expect(answer.body.slot_key).toBe('shop-export:20260301T1000');
    expect(await jobOfSlot(db.pool, 'shop-export:20260301T1000')).toBe(answer.body.job_id);
    // The same instant written in UTC is the same slot.
    const same = await postSlot({ product_ids: [1], at: '2026-03-01T10:00:30.000Z' });
    expect(same).toMatchObject({ status: 200, body: { status: 'already-scheduled', job_id: answer.body.job_id } });
  });

  it('When `at` has no zone, Then the answer is 400 time-zone-required and no row is written [test:http-at-zone-required]', async () => {
    const before = await countRows(db.pool);
    const answer = await postSlot({ product_ids: [1], at: '2026-03-02T10:00:59' });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('time-zone-required');
    expect(answer.body.message).toMatch(/zone/);
    expect(await countRows(db.pool)).toEqual(before);
    expect(await jobOfSlot(db.pool, 'shop-export:20260302T1000')).toBeUndefined();
  });

  it('When both slot_key and at are sent, or neither, Then the answer is 400 and no row is written [test:http-slot-key-or-at]', async () => {
    const before = await countRows(db.pool);
    for (const body of [{ product_ids: [1], slot_key: drillKey(), at: '2026-03-02T10:00:59Z' }, { product_ids: [1] }]) {
      const answer = await postSlot(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error).toBe('slot-key-or-at');
    }
    expect(await countRows(db.pool)).toEqual(before);
  });

  it('When the slot_key is 161 characters long, holds a non-ASCII letter or a space, or is empty, Then the answer is 400 invalid-slot-key and no row is written [test:http-bad-slot-key]', async () => {
    const before = await countRows(db.pool);
    for (const slotKey of ['k'.repeat(161), 'caf\u00e9:20260101T1000', 'shop export:20260101T1000', '']) {
      const answer = await postSlot({ product_ids: [1], slot_key: slotKey });
      expect(answer.status, JSON.stringify(slotKey)).toBe(400);
      expect(answer.body.error).toBe('invalid-slot-key');
    }
    // The control: 160 characters is a slot key.
    expect((await postSlot({ product_ids: [1], slot_key: `${drillKey()}:`.padEnd(160, 'k') })).status).toBe(202);
    expect((await countRows(db.pool)).slots).toBe(before.slots + 1);
  });

  it('When the body is not an object, has wrong types or an unknown field, Then the answer is 4xx JSON naming the problem, and no row is written [test:http-slot-body-checked]', async () => {
    const before = await countRows(db.pool);
    const cases: [unknown, number, RegExp][] = [
      [null, 422, /must be a JSON object, got null/],
      [[1], 422, /must be a JSON object, got an array/],
      [{ product_ids: [1], slot_key: 42 }, 422, /not a valid schedule request/],
      [{ product_ids: [1], at: 1767261659000 }, 422, /not a valid schedule request/],
      [{ product_ids: [], slot_key: drillKey() }, 422, /not a valid schedule request/],
      [{ product_ids: [1], slotKey: drillKey() }, 422, /not a valid schedule request/],
      [{ product_ids: [1], at: 'tomorrow' }, 400, /ISO 8601/],
    ];
    for (const [body, status, message] of cases) {
      const answer = await postSlot(body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body.message, JSON.stringify(body)).toMatch(message);
    }
    expect(await countRows(db.pool)).toEqual(before);
  });

  it('When a product does not exist, Then the answer is 422 missing-products and the slot stays free [test:http-slot-missing-product]', async () => {
    const slotKey = drillKey();
    const answer = await postSlot({ product_ids: [1, 987654], slot_key: slotKey });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe('missing-products');
    expect(await jobOfSlot(db.pool, slotKey)).toBeUndefined();
    expect((await postSlot({ product_ids: [1], slot_key: slotKey })).status).toBe(202);
  });

  it('When the service is full, Then a taken slot answers 200 and a new one 503 with Retry-After, writing nothing [test:http-full-duplicate-vs-new]', async () => {
    const slotKey = drillKey();
    const taken = await postSlot({ product_ids: [1], slot_key: slotKey });
    expect(taken.status).toBe(202);
    const full = await startApi({ admissionLimit: (await countRows(db.pool)).gate });
    try {
      const before = await countRows(db.pool);
      expect(await postSlot({ product_ids: [1], slot_key: slotKey }, full.url)).toMatchObject({
        status: 200,
        body: { status: 'already-scheduled', job_id: taken.body.job_id },
      });
      const refused = await postSlot({ product_ids: [1], slot_key: drillKey() }, full.url);
      expect(refused).toMatchObject({
        status: 503,
        retryAfter: '5',
        location: null,
        body: { error: 'capacity-exceeded' },
      });
      expect(await countRows(db.pool)).toEqual(before);
    } finally {
      await full.close();
    }
  });

  it('When another method is used, Then the answer is 405 with Allow: POST [test:http-slot-allow-post]', async () => {
    const answer = await fetch(`${api.url}/schedule-slots`);
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
  });
});
