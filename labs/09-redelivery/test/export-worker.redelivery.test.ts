// Integration: real worker processes on the lab's Redis, really SIGKILLed.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { crashAfterRename, lateAckWindow } from '../scripts/scenarios.ts';

const EARLY_ACK_WORKER = fileURLToPath(new URL('./fixtures/early-ack-worker.ts', import.meta.url));

describe('export worker redelivery', () => {
  it('When the worker dies after the rename, Then a second process runs the job and the stall re-run is not counted in attemptsMade [test:stall-rerun-not-an-attempt]', {
    timeout: 90_000,
  }, async () => {
    const e = await crashAfterRename();

    expect(e.stateAfterCrash).toBe('active');
    expect(e.executions.map((x) => x.pid)).toEqual([e.firstWorkerPid, e.secondWorkerPid]);
    // The second start is BullMQ's second start, but not a "made" attempt: a stall is not an error.
    expect(e.executions.map((x) => [x.attemptsStarted, x.attemptsMade])).toEqual([
      [1, 0],
      [2, 0],
    ]);
    expect(e.finalState).toBe('completed');
    expect(e.finalDigest).toBe(e.digestAfterCrash);
  });

  it('When maxStalledCount is 0 and the worker dies inside the late-ack window, Then the job fails although its work is done, and is never re-run [test:worker-lost-fails-without-rerun]', {
    timeout: 90_000,
  }, async () => {
    const e = await lateAckWindow(undefined, { maxStalledCount: 0 });

    expect(e.finalState).toBe('failed');
    expect(e.failedReason).toBe('job stalled more than allowable limit');
    expect(e.executions).toHaveLength(1);
    // The side effects of the one execution are there: the job says "failed", the work says "done".
    expect(e.ledger.map((line) => line.pid)).toEqual([e.firstWorkerPid]);
    expect(e.finalDigest).toBe(e.digestAfterCrash);
    // One start more than executions: BullMQ 6's stalled check only marks the job, and the worker
    // that takes it next counts a start and fails it without calling the processor.
    expect(e.attemptsStarted).toBe(e.executions.length + 1);
  });

  it('When a worker acknowledges early (completes the job, then works) and dies after the work, Then nothing runs it again: no duplicate, and no recovery [test:early-ack-no-second-run]', {
    timeout: 90_000,
  }, async () => {
    const e = await lateAckWindow(undefined, { workerScript: EARLY_ACK_WORKER });

    expect(e.stateAfterCrash).toBe('completed');
    expect(e.executions).toHaveLength(1);
    expect(e.ledger).toHaveLength(1);
    // "completed" came before the side effects: had the crash come first, the export would be lost with the job marked done.
    expect(e.windowMs).toBeLessThan(0);
  });
});
