// Integration: BullMQ forks the sandboxed processor, a .ts file, with the tsx loader.
import { describe, expect, it } from 'vitest';
import { blockedLoopExperiment } from '../scripts/scenarios.ts';

describe('sandboxed processor', () => {
  it('When a .ts processor busy-loops past the lock in a sandbox, Then it runs once, in a child process, and completes [test:sandboxed-runs-once]', {
    timeout: 90_000,
  }, async () => {
    const e = await blockedLoopExperiment(undefined, { processor: 'sandboxed', busyMs: 2500 });

    expect(e.executions).toHaveLength(1);
    expect(e.workerPids).not.toContain(e.executions[0]?.pid);
    expect(e.finalState).toBe('completed');
    expect(e.lockErrors).toBe(0);
  });
});
