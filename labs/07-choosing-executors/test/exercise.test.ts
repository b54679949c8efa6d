// Grades the try-it-yourself exercise, in two parts: the placement rule
// (placement.ts) and the decision record written from your own run
// (decision-record.md). solutions/ by default, exercise/ with LAB_EXERCISE=student
// (pnpm lab 07 --exercise).
import { fileURLToPath } from 'node:url';
import { exerciseTarget, loadExercise } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { gradeDecisionRecordFile } from '../src/evidence.ts';

const { choosePlacement } = await loadExercise<typeof import('../solutions/placement.ts')>(
  import.meta.url,
  'placement.ts',
);

describe('choosePlacement', () => {
  it('When a 3 s synchronous SDK call must survive an API restart, Then it goes through a task queue and runs on a worker thread [test:sdk-call-placement]', () => {
    const placement = choosePlacement({ waitsOn: 'blocking-call', mustSurviveRestart: true });
    expect(placement.delivery).toBe('task-queue');
    expect(placement.executor).toBe('worker-thread');
  });

  it('When that SDK call is queued, Then it still needs a timeout, an idempotency key and durable job state [test:sdk-call-safeguards]', () => {
    const { safeguards } = choosePlacement({ waitsOn: 'blocking-call', mustSurviveRestart: true });
    expect([...safeguards].sort()).toEqual(['durable-job-state', 'idempotency-key', 'timeout']);
  });

  it('When network reads only need to finish within the request, Then they stay on the event loop, delivered directly, with a timeout', () => {
    expect(choosePlacement({ waitsOn: 'awaitable-io', mustSurviveRestart: false })).toEqual({
      delivery: 'direct',
      executor: 'event-loop',
      safeguards: ['timeout'],
    });
  });

  it('When CPU-bound scoring must survive a restart, Then a queue delivers it to a separate process, with an idempotency key and durable state [test:restart-needs-queue]', () => {
    const placement = choosePlacement({ waitsOn: 'cpu', mustSurviveRestart: true });
    expect(placement.delivery).toBe('task-queue');
    expect(placement.executor).toBe('separate-process');
    expect([...placement.safeguards].sort()).toEqual(['durable-job-state', 'idempotency-key']);
  });

  it('When work need not survive a restart, Then no queue and no queue safeguards are added', () => {
    for (const waitsOn of ['awaitable-io', 'blocking-call', 'cpu'] as const) {
      const placement = choosePlacement({ waitsOn, mustSurviveRestart: false });
      expect(placement.delivery).toBe('direct');
      expect(placement.safeguards).not.toContain('idempotency-key');
      expect(placement.safeguards).not.toContain('durable-job-state');
    }
  });
});

// The record is graded against the run of labs 01-06 recorded on this machine
// (.earlier-labs.json here, each lab's .lab-result.json). It runs when the exercise is
// graded (pnpm lab 07 --exercise / --solution, pnpm lab check-exercises), not in a plain
// `vitest run`, which may run before (or while) labs 01-06 verify. The grader itself is
// tested on throwaway runs in decision-record.grade.test.ts.
const gradingTheExercise = process.env.LAB_EXERCISE !== undefined;
const recordFile = fileURLToPath(new URL(`../${exerciseTarget()}/decision-record.md`, import.meta.url));
const run = {
  labsDir: fileURLToPath(new URL('../..', import.meta.url)),
  labDir: fileURLToPath(new URL('..', import.meta.url)),
};

describe.runIf(gradingTheExercise)(
  `your decision record (${exerciseTarget()}/decision-record.md), against your own run of labs 01-06`,
  () => {
    const grade = gradeDecisionRecordFile(recordFile, run);
    /** Every problem on its own line, so the failure says what to fix. */
    const listed = (problems: string[]) =>
      `what to fix in ${exerciseTarget()}/decision-record.md:\n  ${problems.join('\n  ')}\n`;

    it('When the record places the four kinds of work, Then each has the executor and delivery its measurements allow, and a limit [test:record-places-four-kinds]', () => {
      expect(grade.placement, listed(grade.placement)).toEqual([]);
    });

    it('When the record cites values, Then each kind cites at least one, and each is in the observed text of a passed check of your run [test:record-values-match-your-run]', () => {
      expect(grade.evidence, listed(grade.evidence)).toEqual([]);
    });

    it("When the record describes the task queue's runtime, Then broker, worker platform, source of truth, delivery and result cache say what holds [test:record-names-queue-runtime]", () => {
      expect(grade.queue, listed(grade.queue)).toEqual([]);
    });
  },
);
