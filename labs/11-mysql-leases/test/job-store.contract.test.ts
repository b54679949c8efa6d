// Lesson 01's JobStore contract, graded against the MySQL store on a database of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeJobStoreContract } from '@tasks-lab/01-state-machine/store-contract';
import { InvalidTransitionError, JOB_STATES, type JobState } from '@tasks-lab/01-state-machine';
import { freshDatabase, type FreshDatabase } from '../src/scratch-databases.ts';
import { MySqlJobStore } from '../src/job-store.ts';
import { seedProducts } from '../src/seed-products.ts';

let db: FreshDatabase | undefined;
beforeAll(async () => {
  db = await freshDatabase('contract');
  await seedProducts(db.pool, 100);
}, 60_000);
afterAll(() => db?.drop());

describeJobStoreContract('MySqlJobStore', async () => ({ store: new MySqlJobStore(db!.pool) }));

describe('MySqlJobStore guard', () => {
  // The guard is the only thing between a finished job and a second run: a store whose
  // list of allowed source states is too wide lets a succeeded job start again.
  it('When the guard list allows every state, Then a succeeded job can be moved back to running (so the real list matters)', async () => {
    const everyState = (): readonly JobState[] => JOB_STATES;
    const careless = new MySqlJobStore(db!.pool, { mayMoveFrom: everyState });
    const job = await careless.create([1]);
    await careless.transition(job.id, 'running');
    await careless.transition(job.id, 'succeeded', { result: { rows: 1 } });
    expect((await careless.transition(job.id, 'running')).state).toBe('running');
  });

  it('When the real store is asked to move a succeeded job back to running, Then it refuses and the row keeps its state', async () => {
    const store = new MySqlJobStore(db!.pool);
    const job = await store.create([1]);
    await store.transition(job.id, 'running');
    await store.transition(job.id, 'succeeded', { result: { rows: 1 } });
    await expect(store.transition(job.id, 'running')).rejects.toBeInstanceOf(InvalidTransitionError);
    expect((await store.require(job.id)).state).toBe('succeeded');
  });
});
