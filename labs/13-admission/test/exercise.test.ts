// Grades the try-it-yourself exercise: solutions/enter-gate.ts by default,
// exercise/enter-gate.ts with LAB_EXERCISE=student (pnpm lab 13 --exercise).
// The course's own exercise: a limit of 5, two producers submitting at once.
import { loadExercise } from '@tasks-lab/lab-kit';
import { submitWithEvent } from '@tasks-lab/12-outbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { countActiveJobs, readGateCounter } from '../src/gate.ts';
import { FAST_QUEUE } from '../src/options.ts';

const { enterGate } = await loadExercise<typeof import('../solutions/enter-gate.ts')>(import.meta.url, 'enter-gate.ts');

let db: FreshDatabase | undefined;
beforeAll(async () => {
  db = await freshDatabase('exercise', { connectionLimit: 20 });
}, 60_000);
afterAll(() => db?.drop());

/** One submission through the student's gate step; 'full' when the gate refused it. */
async function submitThroughGate(limit: number): Promise<'admitted' | 'full'> {
  try {
    await submitWithEvent(db!.pool, [1], {
      queueName: FAST_QUEUE,
      steps: { beforeCommit: async (tx) => void (await enterGate(tx, limit)) },
    });
    return 'admitted';
  } catch (err) {
    if ((err as { code?: unknown }).code === 'capacity-exceeded') return 'full';
    throw err;
  }
}

/** Every job done, the counter back to 0: each test starts from an empty service. */
async function emptyService(): Promise<void> {
  await db!.pool.query(`UPDATE export_jobs SET status = 'succeeded' WHERE status IN ('queued', 'running')`);
  await db!.pool.query('UPDATE export_admission_gate SET active_jobs = 0 WHERE id = 1');
}

describe('exercise: the counter gate, limit 5', () => {
  it('When 6 submissions arrive one after another, Then 5 are admitted and the 6th is refused [test:exercise-sixth-refused]', async () => {
    await emptyService();
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i += 1) outcomes.push(await submitThroughGate(5));
    expect(outcomes).toEqual(['admitted', 'admitted', 'admitted', 'admitted', 'admitted', 'full']);
    expect(await readGateCounter(db!.pool)).toBe(5);
  });

  it('When two producers submit 20 each at once, Then exactly 5 jobs exist and the counter says 5 [test:exercise-concurrent-never-over-limit]', async () => {
    await emptyService();
    const producer = () => Promise.all(Array.from({ length: 20 }, () => submitThroughGate(5)));
    const [a, b] = await Promise.all([producer(), producer()]);
    const admitted = [...a, ...b].filter((outcome) => outcome === 'admitted').length;
    expect({ admitted, active: await countActiveJobs(db!.pool), counter: await readGateCounter(db!.pool) }).toEqual({
      admitted: 5,
      active: 5,
      counter: 5,
    });
  });
});
