// Lesson 05's checklist from the course, in our words, and what grades each item here
// (`pnpm lab coverage 05`; the table in docs/05-thread-pool-io.md is written from this).
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  // Learning checks
  {
    section: 'learning-check',
    item: 'A wait with a time limit gives up and says so, while the read goes on',
    gradedBy: ['check:wait-timeout-read-goes-on'],
  },
  {
    section: 'learning-check',
    item: 'cancel() on a read a thread is running answers false',
    gradedBy: ['check:cancel-running-returns-false'],
  },
  {
    section: 'learning-check',
    item: 'After a cooperative stop the read reports that it stopped early',
    gradedBy: ['check:stop-flag-ends-read', 'test:stop-at-slice-boundary'],
  },
  {
    section: 'learning-check',
    item: 'The pool is closed at the end and every thread exits',
    gradedBy: ['check:close-finishes-then-threads-exit'],
  },
  {
    section: 'learning-check',
    item: 'The batch export keeps at most 4 reads waiting and really runs 2 at once, never more (a rolling window, not fixed batches)',
    gradedBy: ['check:pool-limits-pending-and-running', 'test:export-all-waits-for-room'],
  },
  // Implementation decisions
  {
    section: 'implementation-decision',
    item: 'Every blocking step has its own time limit, which bounds how long a stop can take',
    gradedBy: ['check:stop-flag-ends-read', 'test:stop-before-close', 'test:bad-timing-refused'],
  },
  {
    section: 'implementation-decision',
    item: 'Threads and waiting work are limited together: a full queue refuses or makes the caller wait',
    gradedBy: ['check:pool-limits-pending-and-running', 'test:pool-full-refuses-and-waits'],
  },
  {
    section: 'implementation-decision',
    item: 'After a timeout, nothing assumes the side effect was rolled back: files are written to a temp name and renamed when complete',
    gradedBy: [
      'check:drill-terminate-mid-write',
      'test:timed-out-wait-still-writes-file',
      'test:stopped-read-removes-temp-file',
    ],
  },
  // The course's drill, and ours
  {
    section: 'drill',
    item: 'A 2 s read, a 0.2 s wait: record what cancel() answers and when the read really ends',
    gradedBy: ['check:wait-timeout-read-goes-on', 'check:cancel-running-returns-false'],
  },
  {
    section: 'drill',
    item: 'terminate() ends a thread mid-write: the half-written file and the progress stay, the pool gets a new thread',
    gradedBy: ['check:drill-terminate-mid-write', 'test:terminate-keeps-progress'],
  },
  // Acceptance
  {
    section: 'acceptance',
    item: 'Nothing claims that cancel() can stop a running thread',
    gradedBy: ['check:cancel-running-returns-false'],
  },
  {
    section: 'acceptance',
    item: 'No worker thread is left once the pool has closed, even after a check runs out of time',
    gradedBy: [
      'check:close-finishes-then-threads-exit',
      'test:destroy-ends-every-thread',
      'test:timed-out-check-leaves-no-thread',
    ],
  },
  {
    section: 'acceptance',
    item: 'A timed-out wait is not taken to mean the export did not happen',
    gradedBy: ['check:wait-timeout-read-goes-on', 'test:timed-out-wait-still-writes-file'],
  },
  // Troubleshooting: the mistake shows the symptom, the fix removes it
  {
    section: 'troubleshooting',
    item: 'The caller got "timed out" but the export still appeared: only the wait gave up; giving up must also set the stop flag',
    gradedBy: [
      'test:timed-out-wait-still-writes-file',
      'test:deadline-stop-leaves-no-file',
      'check:abort-signal-sets-stop-flag',
    ],
  },
  {
    section: 'troubleshooting',
    item: 'Closing the pool hangs: close() waits for running reads; bound or stop the read instead of treating close() as a kill',
    gradedBy: ['test:close-waits-for-running-read', 'test:stop-before-close'],
  },
  // Try it yourself
  {
    section: 'exercise',
    item: 'With one thread, a queued read can be cancelled (true) and the running one cannot (false), so it needs its stop flag',
    gradedBy: ['test:exercise-cancel-queued', 'check:cancel-pending-never-runs'],
  },
  // Beyond the course's checklist
  {
    section: 'deep-dive',
    item: 'An async deadline (AbortSignal) reaches the same stop flag as requestStop()',
    gradedBy: ['check:abort-signal-sets-stop-flag'],
  },
  {
    section: 'deep-dive',
    item: 'A cancelled queued read never reaches a thread, even once the threads are free',
    gradedBy: ['check:cancel-pending-never-runs', 'test:cancel-pending-takes-it-back'],
  },
]);
