// Admission against the real database: both gate designs keep the limit under a burst,
// a refusal leaves no row, a replay passes no gate, the finish takes the job out of the
// counter, a lock-wait timeout is retried, and a database that does not answer is a 503.
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claim, seedProducts, withTransaction } from '@tasks-lab/11-mysql-leases';
import { readEvent } from '@tasks-lab/12-outbox';
import { sleep } from '@tasks-lab/lab-kit';
import { admitExport, type AdmitResult } from '../src/admission.ts';
import { COUNT_ORPHANS, LEAVE_GATE, LOCK_GATE } from '../src/admission-queries.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { emptyTheService } from './fixtures/empty-service.ts';
import { countActiveJobs, finishAndLeave, readGateCounter } from '../src/gate.ts';
import { GATE_DESIGNS } from '../src/options.ts';

let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase('admission', { connectionLimit: 10 });
  await seedProducts(db.pool, 100);
}, 60_000);
afterAll(() => db?.drop());

/** Every job done, the counter back to 0: each test starts from an empty service. */
beforeEach(() => emptyTheService(db.pool));

async function rowCounts(): Promise<{ jobs: number; events: number }> {
  const [[jobs], [events]] = await Promise.all([
    db.pool.query<mysql.RowDataPacket[]>('SELECT COUNT(*) AS n FROM export_jobs'),
    db.pool.query<mysql.RowDataPacket[]>('SELECT COUNT(*) AS n FROM export_outbox'),
  ]);
  return { jobs: Number(jobs[0]!.n), events: Number(events[0]!.n) };
}

const codeOf = (reason: unknown) => (reason as { code?: string }).code;

describe.each(GATE_DESIGNS)('the %s gate', (design) => {
  it('When 50 submissions race with a limit of 5, Then exactly 5 are admitted, each saw fewer than 5 under the lock, and the rest leave no row [test:gate-admits-exactly-limit]', async () => {
    const before = await rowCounts();
    const settled = await Promise.allSettled(
      Array.from({ length: 50 }, () =>
        admitExport(db.pool, [1, 2], { rules: { admissionLimit: 5, admissionGate: design } }),
      ),
    );
    const admitted = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const refusals = settled.flatMap((s) => (s.status === 'rejected' ? [codeOf(s.reason)] : []));
    expect(admitted).toHaveLength(5);
    expect(new Set(refusals)).toEqual(new Set(['capacity-exceeded']));
    expect(admitted.map((a) => a.admission!.activeBefore).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(admitted.every((a) => a.admission!.design === design)).toBe(true);
    const after = await rowCounts();
    expect({ jobs: after.jobs - before.jobs, events: after.events - before.events }).toEqual({ jobs: 5, events: 5 });
    expect({ counter: await readGateCounter(db.pool), active: await countActiveJobs(db.pool) }).toEqual({
      counter: 5,
      active: 5,
    });
  });

  it('When one client is over its quota, Then it is refused with 429 while another client is admitted [test:gate-client-quota]', async () => {
    const rules = { admissionGate: design, clientQuota: 2 };
    const settled = await Promise.allSettled(
      Array.from({ length: 5 }, () => admitExport(db.pool, [1], { rules, clientId: 'alice' })),
    );
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(2);
    expect(settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []))).toEqual(
      Array.from({ length: 3 }, () =>
        expect.objectContaining({ code: 'client-quota-exceeded', status: 429, headers: { 'Retry-After': '5' } }),
      ),
    );
    const bob = await admitExport(db.pool, [1], { rules, clientId: 'bob' });
    expect(bob.admission).toMatchObject({ clientId: 'bob', clientActiveBefore: 0, activeBefore: 2 });
  });
});

describe('admission', () => {
  it('When the service is full, Then a replay of an admitted Idempotency-Key still answers its job and creates nothing [test:replay-passes-no-gate]', async () => {
    const first = await admitExport(db.pool, [3, 1], {
      rules: { admissionLimit: 1 },
      idempotencyKey: 'replay-when-full',
    });
    const before = await rowCounts();
    const replay = await admitExport(db.pool, [3, 1], {
      rules: { admissionLimit: 1 },
      idempotencyKey: 'replay-when-full',
    });
    expect(replay).toMatchObject({
      jobId: first.jobId,
      eventId: first.eventId,
      created: false,
      queueName: 'exports.fast',
    });
    expect(replay.admission).toBeUndefined();
    expect(await rowCounts()).toEqual(before);
    await expect(admitExport(db.pool, [2], { rules: { admissionLimit: 1 } })).rejects.toMatchObject({
      code: 'capacity-exceeded',
      status: 503,
    });
  });

  it('When a product is missing, Then the submission is a 4xx and the counter does not move [test:missing-product-no-entry]', async () => {
    for (const admissionGate of GATE_DESIGNS) {
      await expect(admitExport(db.pool, [1, 999_999], { rules: { admissionGate } })).rejects.toMatchObject({
        code: 'missing-products',
      });
    }
    expect(await readGateCounter(db.pool)).toBe(0);
  });

  it('When an export has 31 distinct products, Then its event goes to exports.bulk; 30 (after de-duplication) to exports.fast [test:route-stored-on-event]', async () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    const bulk = await admitExport(db.pool, ids(31));
    const fast = await admitExport(db.pool, [...ids(30), 30]);
    expect([bulk.queueName, fast.queueName]).toEqual(['exports.bulk', 'exports.fast']);
    expect([
      (await readEvent(db.pool, bulk.eventId))?.queueName,
      (await readEvent(db.pool, fast.eventId))?.queueName,
    ]).toEqual(['exports.bulk', 'exports.fast']);
  });

  it('When the holder finishes, Then the job leaves the counter in the same transaction; a second finish changes nothing [test:finish-leaves-gate]', async () => {
    const { jobId } = await admitExport(db.pool, [1]);
    const claimed = await claim(db.pool, jobId, { leaseMs: 10_000 });
    expect(await readGateCounter(db.pool)).toBe(1);
    expect(await finishAndLeave(db.pool, jobId, claimed!.token, `${jobId}.${claimed!.token}.json`)).toBe(true);
    expect(await readGateCounter(db.pool)).toBe(0);
    expect(await finishAndLeave(db.pool, jobId, claimed!.token, `${jobId}.${claimed!.token}.json`)).toBe(false);
    expect({ counter: await readGateCounter(db.pool), active: await countActiveJobs(db.pool) }).toEqual({
      counter: 0,
      active: 0,
    });
  });

  it('When an exit has no entry, Then the CHECK refuses to take the counter below zero [test:counter-never-negative]', async () => {
    await expect(db.pool.query(LEAVE_GATE)).rejects.toMatchObject({ errno: expect.any(Number) });
    expect(await readGateCounter(db.pool)).toBe(0);
  });

  it('When another transaction holds the gate past the lock wait, Then the admission is retried from the top and admitted once it is free [test:lock-wait-retried]', async () => {
    const holder = await db.pool.getConnection();
    const retries: number[] = [];
    let admitted: Promise<AdmitResult> | undefined;
    try {
      await holder.beginTransaction();
      await holder.query(LOCK_GATE);
      admitted = admitExport(db.pool, [1], { onRetry: (attempt) => retries.push(attempt) });
      await sleep(1600); // longer than one lock wait (1 s): the first attempt has failed with 1205
    } finally {
      await holder.rollback();
      holder.release();
    }
    const result = await admitted!;
    expect(result.admission!.attempts).toBeGreaterThanOrEqual(2);
    expect(retries[0]).toBe(1);
    const [orphans] = await db.pool.query<mysql.RowDataPacket[]>(COUNT_ORPHANS);
    expect(orphans[0]).toMatchObject({ jobs_without_event: 0, events_without_job: 0 });
  });

  it('When the gate stays locked through every retry, Then the answer is 503 admission-busy and nothing was created [test:lock-wait-exhausted]', async () => {
    const before = await rowCounts();
    await withTransaction(db.pool, async (holder) => {
      await holder.query(LOCK_GATE);
      await expect(admitExport(db.pool, [1], { rules: { admissionRetries: 1 } })).rejects.toMatchObject({
        code: 'admission-busy',
        status: 503,
        headers: { 'Retry-After': '5' },
      });
    });
    expect(await rowCounts()).toEqual(before);
  }, 20_000);

  it('When the database does not answer, Then the submission is a 503 database-unavailable, never a driver error [test:database-down-503]', async () => {
    // A real connection attempt to a port nothing listens on: refused by the kernel.
    const nowhere = mysql.createPool({ host: '127.0.0.1', port: 1, user: 'nobody', connectTimeout: 500 });
    try {
      await expect(admitExport(nowhere, [1])).rejects.toMatchObject({
        code: 'database-unavailable',
        status: 503,
        headers: { 'Retry-After': '5' },
      });
    } finally {
      await nowhere.end();
    }
  });
});
