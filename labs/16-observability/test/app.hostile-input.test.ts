// Lesson 01's hostile-input battery against lesson 16's API: lesson 15's routes, plus GET
// /metrics and GET /monitoring, whose wrong methods are tried too. The phase lines (structured
// JSON, about 300 characters: longer than the battery's limit for a person's log line) are
// kept apart and checked below: one JSON line each, nothing of the client's in them. Then hostile
// `traceparent` headers: whatever a client sends there, tracing never refuses the request
// (no 4xx, no 5xx because of it) and never continues a trace it could not parse. Nobody
// listens to the nudges here. The battery asks for up to 100 distinct products, so this
// file's fresh database gets products 6 to 100 too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import type { RunningServer } from '@tasks-lab/01-state-machine';
import { describeHostileInputBattery, sendRaw } from '@tasks-lab/01-state-machine/hostile-input';
import { seedProducts } from '@tasks-lab/11-mysql-leases';
import { openNudgeClient, publishNudge } from '@tasks-lab/12-outbox';
import { describeSchedule } from '@tasks-lab/14-schedule-slots';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { nudgeChannel } from '../src/options.ts';
import { createPhaseLogger } from '../src/phase-log.ts';
import { startServer } from '../src/server.ts';
import { parseTraceParent } from '../src/trace.ts';

let db: FreshDatabase;
let redis: Redis;
beforeAll(async () => {
  db = await freshDatabase('hostile');
  await seedProducts(db.pool, 100);
  redis = openNudgeClient();
});
afterAll(async () => {
  redis?.disconnect();
  await db?.drop();
});

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** Every phase line any server of this file wrote. */
const phaseLines: string[] = [];

/** The API with its log lines going to `log`, its phase lines to phaseLines. */
const startApi = (log: (line: string) => void) =>
  startServer(0, {
    pool: db.pool,
    nudge: () => publishNudge(redis, { channel: nudgeChannel }),
    redis,
    logger: createPhaseLogger({
      component: 'api',
      destination: { write: (chunk: string) => void phaseLines.push(chunk) },
    }),
    onSchedule: (result) => log(describeSchedule(result)),
    onRecoveryRequest: log,
    log,
  });

describeHostileInputBattery('lesson 16 API', {
  start: startApi,
  routes: [
    { path: '/exports', allow: ['POST'] },
    { path: `/exports/${UNKNOWN_ID}`, allow: ['GET', 'HEAD'] },
    { path: '/backlog', allow: ['GET', 'HEAD'] },
    { path: '/schedule-slots', allow: ['POST'] },
    { path: `/exports/${UNKNOWN_ID}/cancel`, allow: ['POST'] },
    { path: `/exports/${UNKNOWN_ID}/replay`, allow: ['POST'] },
    { path: '/metrics', allow: ['GET', 'HEAD'] },
    { path: '/monitoring', allow: ['GET', 'HEAD'] },
  ],
});

describe('hostile traceparent headers', () => {
  let api: RunningServer;
  const logged: string[] = [];
  beforeAll(async () => {
    api = await startApi((line) => logged.push(line));
  });
  afterAll(() => api?.close());

  const VALID = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const HOSTILE: [string, string][] = [
    ['too long', `${VALID}-${'f'.repeat(4000)}`],
    ['upper case', VALID.toUpperCase()],
    ['all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['all-zero span id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['not hex', '00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01'],
    ['empty', ''],
    ['a quote and a brace', '00-"},{"phase":"forged"-01'],
    ['two values joined', `${VALID}, ${VALID}`],
  ];

  it('When POST /exports carries a hostile traceparent, Then 202 with a NEW valid trace, never a 4xx or 5xx because of tracing [test:hostile-traceparent-ignored]', async () => {
    for (const [what, header] of HOSTILE) {
      const answer = await sendRaw(api.url, '/exports', {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: header },
        body: '{"product_ids": [1, 2]}',
      });
      expect(answer.status, `${what}: ${answer.text.slice(0, 120)}`).toBe(202);
      const trace = parseTraceParent(answer.headers.traceparent);
      expect(trace, `${what}: answered traceparent ${String(answer.headers.traceparent)}`).toBeDefined();
      expect(trace?.traceId, what).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    }
    // Nothing the client put in the header reached a log line or a phase line; each phase line is one JSON line.
    for (const line of logged) expect(line).not.toMatch(/forged|ffffffffffffffffffff/);
    expect(phaseLines.length).toBeGreaterThanOrEqual(HOSTILE.length);
    for (const chunk of phaseLines) {
      expect(chunk).not.toMatch(/forged|ffffffffffffffffffff/);
      expect(chunk.trimEnd()).not.toMatch(/[\r\n]/);
      expect(JSON.parse(chunk)).toMatchObject({ phase: 'accepted', component: 'api' });
    }
  });

  it('When a GET or a refused request carries a hostile traceparent, Then it is answered as without one [test:hostile-traceparent-any-route]', async () => {
    for (const [what, header] of HOSTILE) {
      const read = await sendRaw(api.url, `/exports/${UNKNOWN_ID}`, { headers: { traceparent: header } });
      expect(read.status, what).toBe(404);
      const metrics = await sendRaw(api.url, '/metrics', { headers: { traceparent: header } });
      expect(metrics.status, what).toBe(200);
      const bad = await sendRaw(api.url, '/exports', {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: header },
        body: '{"product_ids": "x"}',
      });
      expect(bad.status, what).toBe(422);
    }
  });
});
