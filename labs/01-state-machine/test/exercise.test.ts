// Grades the try-it-yourself exercise: solutions/terminal.ts by default,
// exercise/terminal.ts with LAB_EXERCISE=student (pnpm lab 01 --exercise).
import { loadExercise } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { ALLOWED_TRANSITIONS, MemoryJobStore } from '../src/store.ts';

const { isTerminalState, describeJob } = await loadExercise<typeof import('../solutions/terminal.ts')>(
  import.meta.url,
  'terminal.ts',
);

describe('exercise: a derived terminal flag', () => {
  it.each([
    ['queued', false],
    ['running', false],
    ['succeeded', true],
    ['failed', true],
    ['cancelled', true],
  ] as const)('When a job is %s, Then terminal is %s [test:exercise-terminal-flag]', (state, terminal) => {
    expect(isTerminalState(state)).toBe(terminal);
  });

  it('When the transition table changes, Then the answer changes with it (it is derived, not a hard-coded list) [test:exercise-terminal-follows-table]', () => {
    // A made-up machine where a succeeded export may be re-run and a queued one can never start.
    const rerunnable = { ...ALLOWED_TRANSITIONS, succeeded: ['running'], queued: [] } as const;
    expect(isTerminalState('succeeded', rerunnable)).toBe(false);
    expect(isTerminalState('queued', rerunnable)).toBe(true);
    expect(isTerminalState('failed', rerunnable)).toBe(true);
  });

  it('When a job is described as it moves, Then terminal follows its state on every read', async () => {
    const store = new MemoryJobStore();
    const { id } = await store.create([1, 2]);
    expect(describeJob(await store.require(id)).terminal).toBe(false);
    await store.transition(id, 'running');
    expect(describeJob(await store.require(id)).terminal).toBe(false);
    await store.transition(id, 'succeeded', { result: { rows: 2 } });
    expect(describeJob(await store.require(id))).toMatchObject({
      state: 'succeeded',
      terminal: true,
      result: { rows: 2 },
    });
  });

  it('When describeJob gets a custom table, Then it uses that table too', async () => {
    const job = await new MemoryJobStore().create([1]);
    expect(describeJob(job, { ...ALLOWED_TRANSITIONS, queued: [] }).terminal).toBe(true);
  });

  it('When a job is described, Then the job itself gets no terminal field (nothing stored that can go stale)', async () => {
    const job = await new MemoryJobStore().create([1]);
    const view = describeJob(job);
    expect(view).not.toBe(job);
    expect(job).not.toHaveProperty('terminal');
    expect(view).toEqual({ ...job, terminal: false });
  });
});
