// Lesson 04's checklist, in our words, and what grades each item: `check:<id>` is a
// verify check (scripts/checks.ts), `test:<id>` a vitest test tagged [test:<id>].
// `pnpm lab coverage 04` checks it; `--write` puts the table in docs/04-worker-threads.md.
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  {
    section: 'learning-check',
    item: 'Done plus failed adds up to 20, and the error list names the failed id',
    gradedBy: ['check:every-id-settled', 'check:errors-match-failing-id'],
  },
  {
    section: 'learning-check',
    item: 'Waiting for the batch returns, and every thread has exited',
    gradedBy: ['check:threads-exit-cleanly'],
  },
  {
    section: 'learning-check',
    item: 'The simulated slow read happens outside the lock',
    gradedBy: ['check:slow-work-outside-lock'],
  },
  {
    section: 'implementation-decision',
    item: 'Shared state changes only in a short critical section',
    gradedBy: ['check:slow-work-outside-lock', 'check:lock-keeps-count-exact'],
  },
  {
    section: 'implementation-decision',
    item: 'Each thread opens its own connections: a connection cannot be handed to another thread',
    gradedBy: ['test:connection-per-thread', 'test:threads-get-copies'],
  },
  {
    section: 'implementation-decision',
    item: 'The queue has a fixed capacity; when it is full the producer waits',
    gradedBy: ['check:queue-stays-bounded', 'check:drill-capacity-one-settles'],
  },
  {
    section: 'implementation-decision',
    item: 'A failure inside a thread becomes a recorded failed item, never a silent loss',
    gradedBy: ['check:errors-match-failing-id', 'check:batch-recorded-as-job'],
  },
  {
    section: 'drill',
    item: 'With id 7 failing and a queue of capacity 1, the error is collected and every id is settled',
    gradedBy: ['check:drill-capacity-one-settles'],
  },
  {
    section: 'acceptance',
    item: 'Every id put into the queue ends as done, failed or an explicit stop of the whole batch',
    gradedBy: [
      'check:every-id-settled',
      'check:two-failures-still-total',
      'test:unclosed-queue-times-out',
      'test:abort-fails-job',
    ],
  },
  {
    section: 'acceptance',
    item: 'Finished is decided by the counts and the thread exits, never by a momentary queue length',
    gradedBy: ['test:empty-queue-is-not-done', 'check:threads-exit-cleanly'],
  },
  {
    section: 'acceptance',
    item: 'The thread lock is not a cross-process guard: two processes each hold their own',
    gradedBy: ['test:lock-is-process-local'],
  },
  {
    section: 'troubleshooting',
    item: 'The batch never finishes: a failure path skipped the "ready" that asks for more work',
    gradedBy: ['test:missing-ready-hangs-batch', 'test:unclosed-queue-times-out'],
  },
  {
    section: 'troubleshooting',
    item: 'Two threads take as long as one: the slow read runs while the lock is held',
    gradedBy: ['test:work-inside-lock-serialises', 'check:slow-work-outside-lock'],
  },
  {
    section: 'exercise',
    item: "Queue of capacity 1 and 200 ms reads: the producer's own timings show its puts waiting, and every id still settles",
    gradedBy: ['test:exercise-producer-waits'],
  },
]);
