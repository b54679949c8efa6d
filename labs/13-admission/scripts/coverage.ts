// Lesson 13's checklist from the course, in our words, and what grades each item here
// (`pnpm lab coverage 13`; the table in docs/13-admission.md is written from this).
import { coverage } from '@tasks-lab/lab-kit';

const BURST_EVERY_FORM = [
  'check:burst-admits-exactly-limit-count-gate',
  'check:burst-admits-exactly-limit-counter-gate',
  'check:burst-admits-exactly-limit-counter-gate-grouped',
  'check:burst-admits-exactly-limit-counter-gate-early-refusal',
  'check:burst-gate-reads-under-lock-count-gate',
  'check:burst-gate-reads-under-lock-counter-gate',
  'check:burst-gate-reads-under-lock-counter-gate-grouped',
  'check:burst-gate-reads-under-lock-counter-gate-early-refusal',
];
const NOTHING_LEFT_EVERY_FORM = [
  'check:burst-refusals-leave-nothing-count-gate',
  'check:burst-refusals-leave-nothing-counter-gate',
  'check:burst-refusals-leave-nothing-counter-gate-grouped',
  'check:burst-refusals-leave-nothing-counter-gate-early-refusal',
];

export const COVERAGE = coverage([
  // Learning checks
  {
    section: 'learning-check',
    item: 'Concurrent submissions never take the admitted jobs past the configured limit',
    gradedBy: [...BURST_EVERY_FORM, 'test:gate-admits-exactly-limit'],
  },
  {
    section: 'learning-check',
    item: 'Fast and bulk events are each consumed by their own worker',
    gradedBy: ['check:route-by-row-count', 'check:each-queue-has-its-own-worker', 'test:route-stored-on-event'],
  },
  {
    section: 'learning-check',
    item: 'Under overload the API answers 503 (with Retry-After), not 202; once the workers are back, the oldest wait goes down',
    gradedBy: [
      'check:burst-admits-exactly-limit-counter-gate',
      'check:burst-admits-exactly-limit-counter-gate-early-refusal',
      'check:full-service-refused-before-the-lock',
      'test:full-service-503-no-row',
      'check:backlog-count-and-oldest-age',
    ],
  },
  // Implementation decisions
  {
    section: 'implementation-decision',
    item: 'The entrance capacity, the worker concurrency, the database connections and the downstream rate are limited separately',
    docOnly:
      "these are separate settings (ADMISSION_LIMIT, WORKER_CONCURRENCY, each process's pool size), and the export has no downstream service whose rate could be limited; the burst checks show the entrance limit holding with no worker at all",
  },
  {
    section: 'implementation-decision',
    item: 'Splitting the queues comes with consumers of their own, not just new names',
    gradedBy: ['check:each-queue-has-its-own-worker', 'check:fast-completes-while-bulk-paused'],
  },
  {
    section: 'implementation-decision',
    item: 'The backlog is watched by count and by the oldest age, and jobs whose event is not yet published count against the admission limit',
    gradedBy: ['check:backlog-count-and-oldest-age', ...NOTHING_LEFT_EVERY_FORM, 'test:backlog-shape'],
  },
  // The drill
  {
    section: 'drill',
    item: 'Pause only the bulk consumer, submit small and big exports, and see the small ones still processed; then push to a small limit and see submissions refused',
    gradedBy: [
      'check:fast-completes-while-bulk-paused',
      'check:burst-admits-exactly-limit-count-gate',
      'check:burst-admits-exactly-limit-counter-gate',
    ],
  },
  // Acceptance
  {
    section: 'acceptance',
    item: 'The total admitted has a limit that can be verified',
    gradedBy: [
      ...BURST_EVERY_FORM,
      'test:group-shares-transactions',
      'test:group-overflow-refused',
      'test:exercise-concurrent-never-over-limit',
      'test:finish-one-statement-two-at-once',
      'test:finish-transaction-two-at-once',
    ],
  },
  {
    section: 'acceptance',
    item: 'The critical (fast) queue keeps its processing capacity',
    gradedBy: ['check:fast-completes-while-bulk-paused'],
  },
  {
    section: 'acceptance',
    item: 'A refused (503) request leaves no record that was accepted but has no state',
    gradedBy: [
      ...NOTHING_LEFT_EVERY_FORM,
      'check:lock-wait-exhausted-503-nothing-created',
      'check:full-service-refused-before-the-lock',
      'check:course-refusal-waits-for-the-lock',
      'test:full-service-503-no-row',
      'test:group-overflow-refused',
      'test:group-error-stays-its-own',
    ],
  },
  // Troubleshooting
  {
    section: 'troubleshooting',
    item: 'The queues are split but small exports still wait: the same workers, taken by big exports, serve both; give the small ones a consumer of their own',
    gradedBy: ['check:fast-completes-while-bulk-paused', 'check:each-queue-has-its-own-worker'],
  },
  {
    section: 'troubleshooting',
    item: 'The count was checked but the limit was still exceeded: producers read the same count at once; take one agreed lock in the same transaction, then write the job and its event, on every path',
    gradedBy: [
      'check:burst-gate-reads-under-lock-count-gate',
      'check:burst-gate-reads-under-lock-counter-gate',
      'test:exercise-concurrent-never-over-limit',
    ],
  },
  // The exercise
  {
    section: 'exercise',
    item: 'With the limit at 5, two producers submitting at once never take queued + running above 5',
    gradedBy: ['test:exercise-sixth-refused', 'test:exercise-concurrent-never-over-limit'],
  },
]);
