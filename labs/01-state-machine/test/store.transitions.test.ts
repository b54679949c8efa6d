// The transition table and what is particular to MemoryJobStore. What every store must
// do (create, get, allowed and refused moves, counts, copies, races) is graded once, by
// the contract suite in test/store-contract.ts (see test/store.contract.test.ts).
import { describe, expect, it } from 'vitest';
import {
  ALLOWED_TRANSITIONS,
  canTransition,
  InvalidTransitionError,
  isTerminal,
  JOB_STATES,
  MemoryJobStore,
  toView,
} from '../src/store.ts';

const fixedClock = () => {
  let tick = 0;
  return () => new Date(Date.UTC(2025, 0, 1, 0, 0, tick++));
};

describe('store: the transition table', () => {
  it('When a job is queued, Then it may start or be cancelled, and nothing else', () => {
    expect(JOB_STATES.filter((to) => canTransition('queued', to))).toEqual(['running', 'cancelled']);
  });

  it('When a job is running, Then it may succeed, fail or be cancelled', () => {
    expect(JOB_STATES.filter((to) => canTransition('running', to))).toEqual(['succeeded', 'failed', 'cancelled']);
  });

  it.each(['succeeded', 'failed', 'cancelled'] as const)(
    'When a job is %s, Then no move is allowed and it is terminal',
    (state) => {
      expect(JOB_STATES.filter((to) => canTransition(state, to))).toEqual([]);
      expect(isTerminal(state)).toBe(true);
    },
  );

  it('When a job is queued or running, Then it is not terminal', () => {
    expect(isTerminal('queued')).toBe(false);
    expect(isTerminal('running')).toBe(false);
  });

  it('When the table is read, Then every state has an entry (no state can be forgotten)', () => {
    expect(Object.keys(ALLOWED_TRANSITIONS).sort()).toEqual([...JOB_STATES].sort());
  });

  it('When an InvalidTransitionError is shown, Then its name and message say which job made which move', () => {
    const err = new InvalidTransitionError('job-1', 'succeeded', 'running');
    expect(err.name).toBe('InvalidTransitionError');
    expect(err.message).toBe('Job job-1: succeeded -> running is not allowed');
  });
});

describe('store: MemoryJobStore', () => {
  it('When a job goes queued -> running -> succeeded on a clock, Then createdAt stays and updatedAt moves with each step', async () => {
    const store = new MemoryJobStore({ now: fixedClock() });
    const job = await store.create([1, 2]);
    const running = await store.transition(job.id, 'running');
    const done = await store.transition(job.id, 'succeeded', { result: { rows: 2 } });
    expect([job.updatedAt, running.updatedAt, done.updatedAt]).toEqual([
      '2025-01-01T00:00:00.000Z',
      '2025-01-01T00:00:01.000Z',
      '2025-01-01T00:00:02.000Z',
    ]);
    expect(done.createdAt).toBe(job.createdAt);
  });

  it('When jobs are listed, Then they come oldest first, as copies', async () => {
    const store = new MemoryJobStore();
    await store.create([1]);
    await store.create([2]);
    const listed = await store.list();
    listed[0]!.productIds.push(99);
    expect((await store.list()).map((j) => j.productIds)).toEqual([[1], [2]]);
  });

  it('When a job is viewed, Then terminal is computed from its state at that moment and never stored', async () => {
    const store = new MemoryJobStore();
    const { id } = await store.create([1]);
    expect(toView(await store.require(id)).terminal).toBe(false);
    await store.transition(id, 'cancelled');
    expect(toView(await store.require(id)).terminal).toBe(true);
    expect(await store.require(id)).not.toHaveProperty('terminal');
  });
});
