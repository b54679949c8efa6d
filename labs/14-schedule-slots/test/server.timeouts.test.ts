// Lesson 01's request and header timeouts on lesson 14's API, in this process against a fresh
// database, on its own route: a client that announces a body on POST /schedule-slots and sends
// nothing gets a JSON 408 soon after the request timeout (Node's own answer was a bare 408 after
// five minutes), its connection is closed, no slot, job or event is written and the gate is
// unchanged, and the same slot can then be scheduled. Only upper bounds on time are asserted,
// generously, and the lower bound the server cannot beat (no 408 before its timeout).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@tasks-lab/01-state-machine';
import { stallRequest } from '@tasks-lab/lab-kit';
import { expectJsonTimeout } from '@tasks-lab/lab-kit/testing';
import { countRows } from '../scripts/slot-scenarios.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { startServer } from '../src/server.ts';

const TIMEOUTS = { requestTimeoutMs: 1500, headersTimeoutMs: 500 };

let db: FreshDatabase;
let api: RunningServer;
beforeAll(async () => {
  db = await freshDatabase('timeouts');
  api = await startServer(
    0,
    { pool: db.pool, nudge: async () => 0, onAdmission: () => {}, onSchedule: () => {}, log: () => {} },
    undefined,
    TIMEOUTS,
  );
}, 60_000);
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

const postSlot = (slotKey: string) =>
  fetch(`${api.url}/schedule-slots`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ product_ids: [1, 2], slot_key: slotKey }),
  });

describe('lesson 14 API: request and header timeouts', () => {
  it('When POST /schedule-slots announces a 100-byte body and sends none, Then a JSON 408 arrives soon after the request timeout, the connection closes, nothing is written, and a slot is then scheduled [test:body-timeout-json-408]', async () => {
    const before = await countRows(db.pool);
    expectJsonTimeout(
      await stallRequest(api.url, { stall: 'body', path: '/schedule-slots' }),
      TIMEOUTS.requestTimeoutMs,
    );
    expect(await countRows(db.pool), 'the stalled POST changed nothing').toEqual(before);

    expect((await postSlot(`drill:${randomUUID()}`)).status).toBe(202);
    expect(await countRows(db.pool)).toMatchObject({ jobs: before.jobs + 1, slots: before.slots + 1 });
  });

  it('When the headers never finish, Then a JSON 408 arrives soon after the headers timeout and the connection closes [test:headers-timeout-json-408]', async () => {
    const before = await countRows(db.pool);
    expectJsonTimeout(
      await stallRequest(api.url, { stall: 'headers', path: '/schedule-slots' }),
      TIMEOUTS.headersTimeoutMs,
    );
    expect(await countRows(db.pool)).toEqual(before);
    expect((await postSlot(`drill:${randomUUID()}`)).status).toBe(202);
  });
});
