// The API while its database does not answer: a pool pointed at a port where nothing listens
// (refused at once), so no shared service is disturbed. Lesson 11 still answers 500 (lesson 13
// teaches the 503 with Retry-After), but each failed request costs one log line naming the
// cause, never a stack trace per request; a client's mistake is still its 4xx.
import { createServer } from 'node:net';
import mysql, { type Pool } from 'mysql2/promise';
import { mysqlOptions } from '@tasks-lab/infra';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@tasks-lab/01-state-machine';
import { databaseDownAs500 } from '../src/app.ts';
import { JOBS_DATABASE } from '../src/database.ts';
import { startServer } from '../src/server.ts';

/** A port that was free a moment ago and is closed now: a connection there is refused. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

let pool: Pool;
let api: RunningServer;
const log: string[] = [];
beforeAll(async () => {
  pool = mysql.createPool(
    mysqlOptions(JOBS_DATABASE, { port: await closedPort(), connectTimeout: 1000, connectionLimit: 2 }),
  );
  api = await startServer(0, { pool, wake: async () => {}, log: (line) => log.push(line) });
});
afterAll(async () => {
  await api?.close();
  await pool?.end().catch(() => {});
});

/** The lines `request` logged, and its answer. */
async function loggedBy(
  request: () => Promise<Response>,
): Promise<{ lines: string[]; status: number; body: { error?: string; message?: string } }> {
  const before = log.length;
  const answer = await request();
  const body = (await answer.json()) as { error?: string; message?: string };
  return { lines: log.slice(before), status: answer.status, body };
}

const postExport = (body: unknown) =>
  fetch(`${api.url}/exports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('the API while the database is unreachable', () => {
  it.each([
    ['GET /exports/:id', () => fetch(`${api.url}/exports/6a1d3c5e-2b7f-4c8a-9e01-5f6a7b8c9d0e`)],
    ['POST /exports', () => postExport({ product_ids: [1] })],
  ])(
    'When %s meets a refused connection, Then it answers 500 database-unavailable and logs exactly one line, with the cause and no stack trace [test:database-down-one-line]',
    async (_route, request) => {
      for (let i = 0; i < 3; i += 1) {
        const { lines, status, body } = await loggedBy(request);
        expect(status).toBe(500);
        expect(body.error).toBe('database-unavailable');
        expect(body.message).toContain('ECONNREFUSED');
        expect(lines).toHaveLength(1);
        const [line] = lines as [string];
        expect(line).toMatch(/^500 database-unavailable (GET|POST) \/exports/);
        expect(line).toContain('ECONNREFUSED');
        expect(line).not.toContain('\n');
        expect(line).not.toMatch(/\bat .+:\d+:\d+/); // no stack frame
      }
    },
  );

  it('When the request itself is wrong, Then it is still the client error (4xx), answered before any connection is asked for', async () => {
    const { lines, status, body } = await loggedBy(() => postExport({ product_ids: [0] }));
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    expect(body.error).toBe('invalid-body');
    expect(lines).toHaveLength(1);
  });

  it('When an error is not about reaching the database (a bug, a constraint), Then databaseDownAs500 leaves it alone: it stays an unexpected 500 with its stack', () => {
    expect(databaseDownAs500(new TypeError('x is undefined'))).toBeUndefined();
    expect(
      databaseDownAs500(Object.assign(new Error('Duplicate entry'), { code: 'ER_DUP_ENTRY', errno: 1062 })),
    ).toBeUndefined();
    expect(
      databaseDownAs500(Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' }))?.status,
    ).toBe(500);
  });
});
