// Group commit against the real database: admissions that arrive together share one
// transaction and one gate update, keep the limit exactly, refuse what does not fit without
// leaving a row, keep one request's error its own, and leave keyed requests alone.
import type mysql from 'mysql2/promise';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedProducts } from '@tasks-lab/11-mysql-leases';
import { admitExport, type AdmitResult } from '../src/admission.ts';
import { COUNT_ORPHANS } from '../src/admission-queries.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { emptyTheService } from './fixtures/empty-service.ts';
import { countActiveJobs, readGateCounter } from '../src/gate.ts';

let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase('admissiongroup', { connectionLimit: 10 });
  await seedProducts(db.pool, 100);
  // A later lesson's column (lesson 16 adds trace_parent), and a count of the UPDATEs of job
  // rows (a trigger): this file's own database only, so no other test's statements count.
  await db.pool.query('ALTER TABLE export_jobs ADD COLUMN later_note VARCHAR(40) NULL');
  await db.pool.query('CREATE TABLE job_row_updates (n INT NOT NULL)');
  await db.pool.query('INSERT INTO job_row_updates (n) VALUES (0)');
  await db.pool.query(
    'CREATE TRIGGER count_job_row_updates BEFORE UPDATE ON export_jobs FOR EACH ROW UPDATE job_row_updates SET n = n + 1',
  );
}, 60_000);
afterAll(() => db?.drop());

beforeEach(() => emptyTheService(db.pool));

const codeOf = (reason: unknown) => (reason as { code?: string }).code;
const admittedOf = (settled: PromiseSettledResult<AdmitResult>[]) =>
  settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));

/** The explicit transactions the server has begun so far (Com_begin): a group is one. */
async function transactionsBegun(): Promise<number> {
  const [rows] = await db.pool.query<mysql.RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Com_begin'");
  return Number(rows[0]?.Value);
}

/** Job rows updated so far in this file's database (the trigger's count). */
async function jobRowUpdates(): Promise<number> {
  const [rows] = await db.pool.query<mysql.RowDataPacket[]>('SELECT n FROM job_row_updates');
  return Number(rows[0]?.n);
}

/** Each job's later_note, by job id. */
async function notesOf(jobIds: readonly string[]): Promise<Map<string, string | null>> {
  const [rows] = await db.pool.query<mysql.RowDataPacket[]>('SELECT id, later_note FROM export_jobs WHERE id IN (?)', [
    jobIds,
  ]);
  return new Map(rows.map((row) => [String(row.id), row.later_note === null ? null : String(row.later_note)]));
}

describe('group commit', () => {
  it('When 20 submissions arrive together, Then the ones behind the first share transactions: fewer transactions than jobs, every job with its event, the counter equal to the jobs [test:group-shares-transactions]', async () => {
    const begun = await transactionsBegun();
    const settled = await Promise.allSettled(Array.from({ length: 20 }, () => admitExport(db.pool, [1, 2])));
    const admitted = admittedOf(settled);
    expect(admitted).toHaveLength(20);
    const groups = admitted.map((a) => a.admission!.group!);
    expect(Math.max(...groups.map((g) => g.size))).toBeGreaterThan(1);
    // Each group's members read the counter one after another: 0 to 19, each once.
    expect(admitted.map((a) => a.admission!.activeBefore).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    // Other sessions begin transactions too (none here but this file's): at most one per group.
    expect((await transactionsBegun()) - begun).toBeLessThan(20);
    const [orphans] = await db.pool.query<mysql.RowDataPacket[]>(COUNT_ORPHANS);
    expect(Number(orphans[0]!.jobs_without_event)).toBe(0);
    expect({ counter: await readGateCounter(db.pool), active: await countActiveJobs(db.pool) }).toEqual({
      counter: 20,
      active: 20,
    });
  });

  it('When a group does not fit under the limit, Then the ones that fit are admitted in arrival order and the rest refused with 503, leaving no row [test:group-overflow-refused]', async () => {
    const rules = { admissionLimit: 7 };
    const settled = await Promise.allSettled(Array.from({ length: 30 }, () => admitExport(db.pool, [3], { rules })));
    const admitted = admittedOf(settled);
    expect(admitted).toHaveLength(7);
    const refusals = settled.flatMap((s) => (s.status === 'rejected' ? [codeOf(s.reason)] : []));
    expect(refusals).toEqual(Array.from({ length: 23 }, () => 'capacity-exceeded'));
    expect(admitted.map((a) => a.admission!.activeBefore).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect({ counter: await readGateCounter(db.pool), active: await countActiveJobs(db.pool) }).toEqual({
      counter: 7,
      active: 7,
    });
  });

  it("When one request of a group names a missing product, Then only that request is refused (422) and the others are admitted: one request's error is never another's [test:group-error-stays-its-own]", async () => {
    const ids = [[4], [5], [999_999], [6], [7], [8]];
    const settled = await Promise.allSettled(ids.map((productIds) => admitExport(db.pool, productIds)));
    expect(settled.map((s) => (s.status === 'fulfilled' ? 202 : (s.reason as { status?: number }).status))).toEqual([
      202, 202, 422, 202, 202, 202,
    ]);
    expect(await countActiveJobs(db.pool)).toBe(5);
    expect(await readGateCounter(db.pool)).toBe(5);
  });

  it('When the count gate or groups of 1 are chosen, Then each request is admitted alone [test:group-only-when-allowed]', async () => {
    const counted = await Promise.all(
      Array.from({ length: 5 }, () => admitExport(db.pool, [9], { rules: { admissionGate: 'count' } })),
    );
    const single = await Promise.all(
      Array.from({ length: 5 }, () => admitExport(db.pool, [9], { rules: { admissionGroupMax: 1 } })),
    );
    for (const result of [...counted, ...single]) expect(result.admission!.group).toBeUndefined();
    expect(await readGateCounter(db.pool)).toBe(10);
  });

  it('When keyed requests arrive together and one repeats a key already used, Then the repeat answers its first job (created false) and the others are admitted once each [test:group-replay-finds-first-job]', async () => {
    const first = await admitExport(db.pool, [10], { idempotencyKey: 'group-replay-0' });
    const settled = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) => admitExport(db.pool, [10], { idempotencyKey: `group-replay-${i}` })),
    );
    expect(settled[0]).toMatchObject({ jobId: first.jobId, created: false });
    expect(settled.slice(1).every((s) => s.created)).toBe(true);
    expect(new Set(settled.map((s) => s.jobId)).size).toBe(6);
    // Keys that all were new share groups as any request does.
    const fresh = await Promise.all(
      Array.from({ length: 10 }, (_, i) => admitExport(db.pool, [10], { idempotencyKey: `group-fresh-${i}` })),
    );
    expect(Math.max(...fresh.map((f) => f.admission!.group!.size))).toBeGreaterThan(1);
    expect({ counter: await readGateCounter(db.pool), active: await countActiveJobs(db.pool) }).toEqual({
      counter: 16,
      active: 16,
    });
  });

  it("When requests carry a later lesson's job columns, Then a group writes each member's value in its INSERT (no job row updated) and an admission alone writes them with one UPDATE in its transaction [test:group-writes-job-columns]", async () => {
    const before = await jobRowUpdates();
    const grouped = await Promise.all(
      Array.from({ length: 12 }, (_, i) => admitExport(db.pool, [11], { jobColumns: { later_note: `grouped-${i}` } })),
    );
    expect(Math.max(...grouped.map((g) => g.admission!.group!.size))).toBeGreaterThan(1);
    expect(await jobRowUpdates()).toBe(before);
    const alone = await admitExport(db.pool, [11], {
      rules: { admissionGroupMax: 1 },
      jobColumns: { later_note: 'alone' },
    });
    expect(await jobRowUpdates()).toBe(before + 1);
    const notes = await notesOf([...grouped.map((g) => g.jobId), alone.jobId]);
    expect(grouped.map((g) => notes.get(g.jobId))).toEqual(grouped.map((_, i) => `grouped-${i}`));
    expect(notes.get(alone.jobId)).toBe('alone');
  });
});
