// The JobStore contract, as a vitest suite any store can be graded by: lesson 01 runs it
// against MemoryJobStore (test/store.contract.test.ts), lesson 11 against its MySQL store.
//
//   import { describeJobStoreContract } from '@tasks-lab/01-state-machine/store-contract';
//   describeJobStoreContract('MySqlJobStore', async () => ({ store, close: () => pool.end() }));
//
// makeStore runs before every test and close after it. A store may keep the jobs of
// earlier tests (a shared table), so counts are checked as differences, never as totals.
// This file imports vitest, so it is exported on its own ("./store-contract" in
// package.json) and never from src/index.ts, which runs in production processes.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ALLOWED_TRANSITIONS,
  InvalidTransitionError,
  isTerminal,
  JOB_STATES,
  JobNotFoundError,
  statesThatMayMoveTo,
  type ExportJob,
  type JobState,
  type JobStore,
  type TransitionPatch,
} from '../src/store.ts';

export interface StoreUnderContract {
  store: JobStore;
  /** Releases what makeStore opened (a pool, a connection). */
  close?: () => Promise<void>;
}

type Move = readonly [from: JobState, to: JobState];

const ALLOWED_MOVES: Move[] = JOB_STATES.flatMap((from) => ALLOWED_TRANSITIONS[from].map((to) => [from, to] as const));
/** Refused moves out of states that do have a way out; terminal states get their own test. */
const REFUSED_MOVES: Move[] = JOB_STATES.filter((from) => !isTerminal(from)).flatMap((from) =>
  JOB_STATES.filter((to) => !ALLOWED_TRANSITIONS[from].includes(to)).map((to) => [from, to] as const),
);
const TERMINAL_STATES = JOB_STATES.filter(isTerminal);

/** What a worker would write with each move: a result on success, a reason on failure. */
function patchFor(to: JobState): TransitionPatch {
  if (to === 'succeeded') return { result: { rows: 2 } };
  if (to === 'failed') return { error: 'product 2 is missing' };
  return {};
}

/** The shortest chain of allowed moves from queued to `state`, found in the table itself. */
function movesTo(state: JobState): JobState[] {
  const routes = new Map<JobState, JobState[]>([['queued', []]]);
  for (const [from, route] of routes) {
    for (const to of ALLOWED_TRANSITIONS[from]) if (!routes.has(to)) routes.set(to, [...route, to]);
  }
  const route = routes.get(state);
  if (!route) throw new Error(`no job can ever reach ${state}: ALLOWED_TRANSITIONS has no route to it`);
  return route;
}

/** A new job brought to `state` by allowed moves only. */
async function jobIn(store: JobStore, state: JobState): Promise<ExportJob> {
  let job = await store.create([1, 2]);
  for (const to of movesTo(state)) job = await store.transition(job.id, to, patchFor(to));
  return job;
}

/** What `attempt` rejected with; undefined when it went through. */
async function thrownBy(attempt: Promise<unknown>): Promise<unknown> {
  try {
    await attempt;
    return undefined;
  } catch (err) {
    return err;
  }
}

/** A move that must be refused, carrying a patch that must not be written either. */
const refusal = (store: JobStore, id: string, to: JobState) =>
  thrownBy(store.transition(id, to, { result: { rows: 99 }, error: 'this must not be written' }));

/** count() in total and for every state. */
async function counts(store: JobStore): Promise<Record<JobState | 'total', number>> {
  const perState = await Promise.all(JOB_STATES.map(async (state) => [state, await store.count(state)] as const));
  return { ...(Object.fromEntries(perState) as Record<JobState, number>), total: await store.count() };
}

/**
 * The contract's de-duplication rule on its own, so a test can also show it rejecting a
 * store of the old design (one that keeps the ids exactly as sent, repeats included).
 */
export async function expectDistinctProductIds(store: JobStore): Promise<void> {
  const job = await store.create([3, 1, 3, 2, 1]);
  expect(job.productIds, 'create() answers').toEqual([3, 1, 2]);
  expect((await store.require(job.id)).productIds, 'the stored job').toEqual([3, 1, 2]);
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
  const withRepeats = await store.create([...hundred, ...hundred.slice(0, 50)]);
  expect((await store.require(withRepeats.id)).productIds, '150 ids, 100 distinct').toEqual(hundred);
}

export function describeJobStoreContract(name: string, makeStore: () => Promise<StoreUnderContract>): void {
  describe(`JobStore contract: ${name}`, () => {
    let store: JobStore;
    let close: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      ({ store, close } = await makeStore());
    });
    afterEach(async () => {
      await close?.();
    });

    it('When a job is created, Then it is queued with the product ids as given, and get returns the same record', async () => {
      const submitted = [2, 1, 3];
      const job = await store.create(submitted);
      submitted.push(4); // the caller's array is theirs: changing it later must not reach the store
      expect(job).toMatchObject({ state: 'queued', productIds: [2, 1, 3], result: null, error: null });
      expect(job.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
      expect(job.updatedAt).toBe(job.createdAt);
      expect(await store.get(job.id)).toEqual(job);
      expect(await store.require(job.id)).toEqual(job);
    });

    // The course counts its 1-100 limit after de-duplication. The HTTP schema de-duplicates
    // at the edge; the store does it too, so a caller that never passes through HTTP (a
    // worker, a script, lesson 11's producer) cannot store a product twice.
    it('When product ids repeat, Then the job keeps each once, in the order first seen [test:store-dedupes-product-ids]', async () => {
      await expectDistinctProductIds(store);
    });

    it('When an id is unknown, Then get answers undefined and require and transition throw JobNotFoundError (404)', async () => {
      const id = randomUUID();
      expect(await store.get(id)).toBeUndefined();
      const notFound = await thrownBy(store.require(id));
      expect(notFound).toBeInstanceOf(JobNotFoundError);
      expect(notFound).toMatchObject({ jobId: id, status: 404, code: 'job-not-found' });
      expect(await thrownBy(store.transition(id, 'running'))).toBeInstanceOf(JobNotFoundError);
    });

    it.each(ALLOWED_MOVES)(
      'When a %s job moves to %s (allowed), Then the move is stored with its patch',
      async (from, to) => {
        const job = await jobIn(store, from);
        const moved = await store.transition(job.id, to, patchFor(to));
        const stored = await store.get(job.id);
        expect(moved).toMatchObject({ state: to, productIds: [1, 2], createdAt: job.createdAt, ...patchFor(to) });
        expect(stored).toEqual(moved);
        expect(moved.updatedAt >= job.updatedAt).toBe(true);
      },
    );

    it.each(REFUSED_MOVES)(
      'When a %s job is asked to move to %s (not allowed), Then InvalidTransitionError (409) and the record is byte-for-byte unchanged',
      async (from, to) => {
        const job = await jobIn(store, from);
        const before = JSON.stringify(await store.get(job.id));
        const thrown = await refusal(store, job.id, to);
        expect(thrown).toBeInstanceOf(InvalidTransitionError);
        expect(thrown).toMatchObject({ jobId: job.id, from, to, status: 409, code: 'invalid-transition' });
        expect(JSON.stringify(await store.get(job.id))).toBe(before);
      },
    );

    it.each(TERMINAL_STATES)(
      'When a job is %s (terminal), Then no move at all is accepted and the record stays as it was',
      async (state) => {
        const job = await jobIn(store, state);
        const before = JSON.stringify(await store.get(job.id));
        for (const to of JOB_STATES) {
          expect(await refusal(store, job.id, to), `${state} -> ${to}`).toBeInstanceOf(InvalidTransitionError);
        }
        expect(JSON.stringify(await store.get(job.id))).toBe(before);
      },
    );

    it('When jobs are moved, Then count follows them per state and in total', async () => {
      const before = await counts(store);
      for (const state of [...JOB_STATES, 'cancelled'] as const) await jobIn(store, state);
      const after = await counts(store);
      const added = Object.fromEntries(JOB_STATES.map((state) => [state, after[state] - before[state]]));
      expect(added).toEqual({ queued: 1, running: 1, succeeded: 1, failed: 1, cancelled: 2 });
      expect(after.total - before.total).toBe(6);
    });

    it('When a caller changes a record the store returned, Then the stored job does not change', async () => {
      const created = await store.create([1]);
      created.state = 'succeeded';
      created.productIds.push(99);
      const running = await store.transition(created.id, 'running');
      running.productIds.length = 0;
      const read = await store.get(created.id);
      read!.error = 'scribbled on';
      expect(await store.get(created.id)).toMatchObject({ state: 'running', productIds: [1], error: null });
    });

    it('When two moves to running race for one queued job, Then exactly one wins and the other is refused [test:store-race-one-winner]', async () => {
      const { id } = await store.create([1]);
      const results = await Promise.allSettled([store.transition(id, 'running'), store.transition(id, 'running')]);
      const winners = results.filter((r) => r.status === 'fulfilled');
      const losers = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(1);
      expect(losers[0]).toBeInstanceOf(InvalidTransitionError);
      expect(losers[0]).toMatchObject({ from: 'running', to: 'running' });
      expect(await store.get(id)).toMatchObject({ state: 'running' });
    });

    // Lesson 11's MySQL store checks and writes in one statement,
    //   UPDATE jobs SET state = ? ... WHERE id = ? AND state IN (<statesThatMayMoveTo(to)>)
    // so its guard is generated from statesThatMayMoveTo. That guard must be exactly the
    // table read backwards, or the SQL store would follow a different rule book.
    it('When statesThatMayMoveTo is asked about each state, Then it is ALLOWED_TRANSITIONS read backwards', () => {
      for (const to of JOB_STATES) {
        expect(statesThatMayMoveTo(to), `into ${to}`).toEqual(
          JOB_STATES.filter((from) => ALLOWED_TRANSITIONS[from].includes(to)),
        );
      }
    });
  });
}
