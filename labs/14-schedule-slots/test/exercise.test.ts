// Grades the try-it-yourself exercise: solutions/schedule-once.ts by default,
// exercise/schedule-once.ts with LAB_EXERCISE=student (pnpm lab 14 --exercise).
// The course's own exercise: two producers call the same new slot at once; one job.
import type { RowDataPacket } from 'mysql2/promise';
import { loadExercise } from '@tasks-lab/lab-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';

const { scheduleOnce } = await loadExercise<typeof import('../solutions/schedule-once.ts')>(
  import.meta.url,
  'schedule-once.ts',
);

let db: FreshDatabase | undefined;
beforeAll(async () => {
  db = await freshDatabase('exercise', { connectionLimit: 20 });
}, 60_000);
afterAll(() => db?.drop());

async function count(sql: string): Promise<number> {
  const [rows] = await db!.pool.query<RowDataPacket[]>(sql);
  return Number(rows[0]?.n);
}

describe('exercise: one job per slot, whoever calls', () => {
  it('When one producer calls the same slot twice, Then the second call answers already-scheduled with the first job [test:exercise-same-slot-twice]', async () => {
    const first = await scheduleOnce(db!.pool, 'exercise:twice', [1]);
    const second = await scheduleOnce(db!.pool, 'exercise:twice', [1]);
    expect(first.status).toBe('scheduled');
    expect(second).toMatchObject({ status: 'already-scheduled', jobId: first.jobId });
  });

  it('When two producers call a new slot 10 times each at once, Then exactly one job, one slot and one event are created [test:exercise-concurrent-one-job]', async () => {
    const before = {
      jobs: await count('SELECT COUNT(*) AS n FROM export_jobs'),
      events: await count('SELECT COUNT(*) AS n FROM export_outbox'),
    };
    const producer = () => Promise.all(Array.from({ length: 10 }, () => scheduleOnce(db!.pool, 'exercise:race', [1])));
    const results = (await Promise.all([producer(), producer()])).flat();
    const scheduled = results.filter((r) => r.status === 'scheduled');
    expect(scheduled).toHaveLength(1);
    expect(new Set(results.map((r) => r.jobId))).toEqual(new Set([scheduled[0]!.jobId]));
    expect({
      jobs: (await count('SELECT COUNT(*) AS n FROM export_jobs')) - before.jobs,
      events: (await count('SELECT COUNT(*) AS n FROM export_outbox')) - before.events,
      slots: await count(`SELECT COUNT(*) AS n FROM export_schedule_slots WHERE slot_key = 'exercise:race'`),
    }).toEqual({ jobs: 1, events: 1, slots: 1 });
  });
});
