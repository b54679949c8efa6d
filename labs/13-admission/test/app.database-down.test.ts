// A database that stops answering, on every route of lesson 13's API: 503 database-unavailable
// with Retry-After, never a 500 with a driver's message.
//
// The case the soak found (docs/soak.md): the database goes away AFTER a submission's COMMIT and
// before the API reads the row back to build its answer. The job is saved; the client must be
// told to come back (503), not that the server broke (500); its retry with the same
// Idempotency-Key finds the saved job. To cut the database off at exactly that moment, the API's
// pool reaches the real database through a small TCP relay that the test closes.
import { createServer, Socket, type Server } from 'node:net';
import mysql, { type Pool, type RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mysqlOptions, serviceSettings } from '@tasks-lab/infra';
import { admitExport } from '../src/admission.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { startServer } from '../src/server.ts';

/** A TCP relay to the database; cut() closes it and every connection through it (ECONNRESET, then ECONNREFUSED). */
interface Relay {
  port: number;
  cut(): Promise<void>;
}

async function startRelay(target: { host: string; port: number }): Promise<Relay> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new Socket().connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    cut: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase('dbdown');
}, 60_000);
afterAll(() => db?.drop());

const post = (url: string, key: string) =>
  fetch(`${url}/exports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'Idempotency-Key': key },
    body: JSON.stringify({ product_ids: [1, 2] }),
  });

const JOB_BY_KEY = 'SELECT id FROM export_jobs WHERE idempotency_key = ?';

describe('a database that stops answering', () => {
  it('When the database goes away between the COMMIT and the read-back, Then the answer is 503 with Retry-After, the job is saved, and the retry with the same key gets 202 for it [test:commit-then-db-down-503]', async () => {
    const relay = await startRelay({ host: serviceSettings().host, port: serviceSettings().mysqlPort });
    const viaRelay: Pool = mysql.createPool({ ...mysqlOptions(db.name), port: relay.port, connectTimeout: 1000 });
    const key = 'commit-then-down-1';
    const logs: string[] = [];
    const api = await startServer(0, {
      pool: viaRelay,
      nudge: async () => 0,
      onAdmission: () => {},
      log: (line) => logs.push(line),
      // The real admission commits; then the database is cut off before the API reads the row.
      admit: async (...args) => {
        const admitted = await admitExport(...args);
        await relay.cut();
        return admitted;
      },
    });
    try {
      const answer = await post(api.url, key);
      const body = (await answer.json()) as { error: string; message: string };
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      expect(body.error).toBe('database-unavailable');
      expect(body.message).toMatch(/may or may not have been applied; repeat it \(with the same Idempotency-Key/);
      expect(logs.some((line) => line.startsWith('unexpected error'))).toBe(false);
    } finally {
      await api.close();
      await viaRelay.end().catch(() => undefined);
    }
    // The job was committed before the cut: the retry (the database back) answers it, creates nothing.
    const [saved] = await db.pool.query<RowDataPacket[]>(JOB_BY_KEY, [key]);
    expect(saved).toHaveLength(1);
    const again = await startServer(0, { pool: db.pool, nudge: async () => 0, onAdmission: () => {}, log: () => {} });
    try {
      const retry = await post(again.url, key);
      expect(retry.status).toBe(202);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(((await retry.json()) as { id: string }).id).toBe(saved[0]!.id);
    } finally {
      await again.close();
    }
  }, 30_000);

  it('When the database does not answer a read (GET /exports/:id, GET /backlog), Then it is 503 database-unavailable with Retry-After, not 500 [test:read-db-down-503]', async () => {
    // A real connection attempt to a port nothing listens on: refused by the kernel.
    const nowhere = mysql.createPool({ host: '127.0.0.1', port: 1, user: 'nobody', connectTimeout: 500 });
    const logs: string[] = [];
    const api = await startServer(0, {
      pool: nowhere,
      nudge: async () => 0,
      onAdmission: () => {},
      log: (line) => logs.push(line),
    });
    try {
      for (const path of ['/exports/0f9d3c2e-8a4b-4c1d-9e2f-3a4b5c6d7e8f', '/backlog']) {
        const answer = await fetch(`${api.url}${path}`);
        const body = (await answer.json()) as { error: string };
        expect([path, answer.status, body.error, answer.headers.get('retry-after')]).toEqual([
          path,
          503,
          'database-unavailable',
          '5',
        ]);
      }
      expect(logs.some((line) => line.startsWith('unexpected error'))).toBe(false);
    } finally {
      await api.close();
      await nowhere.end();
    }
  });
});
