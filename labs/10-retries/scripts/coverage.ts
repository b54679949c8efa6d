// Lesson 10's checklist from the course, in our words, and what grades each item here
// (`pnpm lab coverage 10`; the table in docs/10-retries.md is written from this).
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  // Learning checks
  {
    section: 'learning-check',
    item: 'A job whose source fails twice is retried, with waits, and then completes (3 runs)',
    gradedBy: ['check:recovers-after-two-failures', 'check:retry-waits-follow-backoff'],
  },
  {
    section: 'learning-check',
    item: 'A job past its deadline fails without reading the source',
    gradedBy: ['check:expired-deadline-skips-source'],
  },
  {
    section: 'learning-check',
    item: 'A permanent error is not retried: it runs once',
    gradedBy: ['check:permanent-error-runs-once'],
  },
  {
    section: 'learning-check',
    item: 'At most the first run plus three retries: 4 runs, then failed',
    gradedBy: ['check:always-failing-runs-four-times', 'test:attempts-counts-first-run'],
  },
  // Implementation decisions
  {
    section: 'implementation-decision',
    item: 'The deadline and the attempt count are kept with the job (deadline_at in its data, attemptsMade in its hash), not recomputed per run',
    gradedBy: ['test:retry-keeps-deadline-at', 'check:retry-past-deadline-refused'],
  },
  {
    section: 'implementation-decision',
    item: 'Every outside operation has a time limit, and a wait that would overrun the budget fails instead of being scheduled',
    gradedBy: [
      'check:retry-past-deadline-refused',
      'check:soft-limit-stops-work',
      'check:hard-limit-kills-child',
      'test:50ms-left-no-retry',
    ],
  },
  {
    section: 'implementation-decision',
    item: 'Side effects stay idempotent, so a retry never takes stock (or charges) twice',
    gradedBy: ['check:rerun-job-deducts-once', 'check:same-order-deducted-once'],
  },
  {
    section: 'implementation-decision',
    item: 'Retries back off and spread: each wait is drawn under a doubling, capped ceiling, and the worker really waits it',
    gradedBy: ['check:backoff-capped-full-jitter', 'check:retry-waits-follow-backoff', 'test:backoff-capped'],
  },
  // The drill
  {
    section: 'drill',
    item: 'Inject a recoverable error, a permanent error and an expired deadline, and record each retry trace (runs, reads, waits)',
    gradedBy: [
      'check:recovers-after-two-failures',
      'check:permanent-error-runs-once',
      'check:expired-deadline-skips-source',
      'check:retry-waits-follow-backoff',
    ],
  },
  // Acceptance
  {
    section: 'acceptance',
    item: 'Retries are bounded by a count and by a total time',
    gradedBy: ['check:always-failing-runs-four-times', 'check:retry-past-deadline-refused'],
  },
  {
    section: 'acceptance',
    item: 'An error that waiting cannot fix is never queued again',
    gradedBy: ['check:permanent-error-runs-once', 'test:non-retryable-fails-fast', 'test:unplanned-error-not-retried'],
  },
  {
    section: 'acceptance',
    item: 'A job past its business deadline costs the downstream nothing',
    gradedBy: ['check:expired-deadline-skips-source'],
  },
  // Troubleshooting
  {
    section: 'troubleshooting',
    item: 'The budget never runs out because every retry restarts the deadline: the producer sets deadline_at once and retries carry it',
    gradedBy: ['test:retry-keeps-deadline-at', 'check:retry-past-deadline-refused'],
  },
  {
    section: 'troubleshooting',
    item: 'Retrying every exception turns input and permission errors into useless traffic: only the allow-list is retried',
    gradedBy: ['check:permanent-error-runs-once', 'test:non-retryable-fails-fast'],
  },
  // Try it yourself
  {
    section: 'exercise',
    item: 'With a 0.05 s budget the job fails at once although retries are left',
    gradedBy: ['test:exercise-50ms-budget-fails', 'test:exercise-attempts-exhausted'],
  },
  // Deep dives (the Celery book's chapter on retries, idempotency and time limits)
  {
    section: 'deep-dive',
    item: 'Exponential backoff with a cap and jitter, seen in the gaps between runs, not only in the formula',
    gradedBy: ['check:retry-waits-follow-backoff', 'check:backoff-capped-full-jitter', 'test:seeded-jitter-repeatable'],
  },
  {
    section: 'deep-dive',
    item: 'A retry continues the same job (same id, same deadline); it is not a new job',
    gradedBy: ['test:retry-keeps-deadline-at'],
  },
  {
    section: 'deep-dive',
    item: 'A dedupe row keyed by the order id takes stock once, however often and however concurrently the job runs',
    gradedBy: ['check:same-order-deducted-once', 'check:rerun-job-deducts-once', 'test:same-order-concurrent-once'],
  },
  {
    section: 'deep-dive',
    item: 'A soft time limit lets the work clean up; a hard one kills the process that ignores it',
    gradedBy: [
      'check:soft-limit-stops-work',
      'check:hard-limit-kills-child',
      'test:soft-limit-aborts-signal',
      'test:hard-limit-kills-child-process',
    ],
  },
]);
