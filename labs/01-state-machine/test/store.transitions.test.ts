import { describe, expect, it } from 'vitest';
import {
  ALLOWED_TRANSITIONS,
  canTransition,
  InvalidTransitionError,
  isTerminal,
  JOB_STATES,
  JobNotFoundError,
  JobStore,
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

  it.each(['succeeded', 'failed', 'cancelled'] as const)('When a job is %s, Then no move is allowed and it is terminal', (state) => {
    expect(JOB_STATES.filter((to) => canTransition(state, to))).toEqual([]);
    expect(isTerminal(state)).toBe(true);
  });

  it('When a job is queued or running, Then it is not terminal', () => {
    expect(isTerminal('queued')).toBe(false);
    expect(isTerminal('running')).toBe(false);
  });

  it('When the table is read, Then every state has an entry (no state can be forgotten)', () => {
    expect(Object.keys(ALLOWED_TRANSITIONS).sort()).toEqual([...JOB_STATES].sort());
  });
});

describe('store: JobStore', () => {
  it('When a job is created, Then it is queued with the product ids exactly as given and no result', () => {
    const store = new JobStore({ now: fixedClock() });
    const job = store.create([2, 1, 2]);
    expect(job).toMatchObject({ state: 'queued', productIds: [2, 1, 2], result: null, error: null });
    expect(job.createdAt).toBe(job.updatedAt);
    expect(store.get(job.id)).toEqual(job);
  });

  it('When a job goes queued -> running -> succeeded, Then the result is kept and updatedAt moves', () => {
    const store = new JobStore({ now: fixedClock() });
    const job = store.create([1, 2]);
    store.transition(job.id, 'running');
    const done = store.transition(job.id, 'succeeded', { result: { rows: 2 } });
    expect(done).toMatchObject({ state: 'succeeded', result: { rows: 2 }, createdAt: job.createdAt });
    expect(done.updatedAt > job.updatedAt).toBe(true);
  });

  it('When a finished job is moved back to running, Then InvalidTransitionError (409) is thrown and the record is unchanged', () => {
    const store = new JobStore({ now: fixedClock() });
    const { id } = store.create([1]);
    store.transition(id, 'running');
    store.transition(id, 'succeeded', { result: { rows: 1 } });
    const before = store.get(id);

    const attempt = () => store.transition(id, 'running', { error: 'late worker' });

    expect(attempt).toThrow(InvalidTransitionError);
    expect(attempt).toThrow(/succeeded -> running is not allowed/);
    expect(store.get(id)).toEqual(before);
  });

  it('When the error is inspected, Then it names the job, both states and the 409 status', () => {
    const store = new JobStore();
    const { id } = store.create([1]);
    try {
      store.transition(id, 'succeeded');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidTransitionError);
      expect(err).toMatchObject({ jobId: id, from: 'queued', to: 'succeeded', status: 409, code: 'invalid-transition', name: 'InvalidTransitionError' });
    }
  });

  it('When an unknown id is moved or required, Then JobNotFoundError (404) is thrown', () => {
    const store = new JobStore();
    expect(() => store.transition('missing', 'running')).toThrow(JobNotFoundError);
    expect(() => store.require('missing')).toThrow(JobNotFoundError);
    expect(store.get('missing')).toBeUndefined();
  });

  it('When a caller changes a returned record, Then the stored job does not change', () => {
    const store = new JobStore();
    const job = store.create([1]);
    job.state = 'succeeded';
    job.productIds.push(99);
    expect(store.get(job.id)).toMatchObject({ state: 'queued', productIds: [1] });
  });

  it('When the caller changes the array it submitted, Then the stored product ids do not change', () => {
    const store = new JobStore();
    const ids = [1, 2];
    const job = store.create(ids);
    ids.push(3);
    expect(store.get(job.id)?.productIds).toEqual([1, 2]);
  });

  it('When jobs are created, Then size and list count them', () => {
    const store = new JobStore();
    store.create([1]);
    store.create([2]);
    expect(store.size).toBe(2);
    expect(store.list().map((j) => j.productIds)).toEqual([[1], [2]]);
  });

  it('When a job is viewed, Then terminal is computed from its state at that moment', () => {
    const store = new JobStore();
    const { id } = store.create([1]);
    expect(toView(store.require(id)).terminal).toBe(false);
    store.transition(id, 'cancelled');
    expect(toView(store.require(id)).terminal).toBe(true);
    expect(store.require(id)).not.toHaveProperty('terminal');
  });
});
