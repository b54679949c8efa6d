// Lesson 15's checklist from the course, in our words, and what grades each item here
// (`pnpm lab coverage 15`; the table in docs/15-recovery.md is written from this).
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  // Learning checks
  {
    section: 'learning-check',
    item: 'A cancelled job is never published as succeeded by finish; the worker stops and the scanner moves it to cancelled',
    gradedBy: ['check:cancelled-never-publishes', 'test:cancel-running-never-publishes'],
  },
  {
    section: 'learning-check',
    item: 'An expired lease is recovered with a new event; attempts are never reset, and a job has at most 3 claims',
    gradedBy: [
      'check:lease-recovered-after-sigkill',
      'check:three-expiries-dead-letter',
      'test:expired-lease-requeued-with-backoff',
    ],
  },
  {
    section: 'learning-check',
    item: 'An exhausted job ends failed with a dead letter; a replay is a new job id that records replay_of',
    gradedBy: [
      'check:three-expiries-dead-letter',
      'check:replay-new-linked-job',
      'test:replay-links-new-job',
      'check:replay-keeps-snapshot',
    ],
  },
  {
    section: 'learning-check',
    item: 'A queued job whose event was sent but never claimed gets a recovery event; while an event is pending, scans add no more',
    gradedBy: ['check:queued-recovery-one-pending-event', 'test:unclaimed-threshold-respected'],
  },
  {
    section: 'learning-check',
    item: 'Before next_attempt_at, duplicate messages cannot add attempts: deliveries and executions are counted apart',
    gradedBy: ['check:retry-gate-holds-duplicates', 'test:retry-gate-holds-duplicates'],
  },
  // Implementation decisions
  {
    section: 'implementation-decision',
    item: 'Cancellation, a normal exit and a forced kill each have a defined result and a defined recovery',
    gradedBy: [
      'check:cancelled-never-publishes',
      'test:worker-sigterm-finishes-within-grace',
      'test:worker-sigterm-aborts-after-grace',
      'check:lease-recovered-after-sigkill',
    ],
  },
  {
    section: 'implementation-decision',
    item: 'The scanner touches only expired or explicitly ended jobs, in short transactions and bounded batches',
    gradedBy: ['test:live-lease-untouched', 'test:scan-passes-use-index', 'test:scanner-full-batch-again'],
  },
  {
    section: 'implementation-decision',
    item: 'After a fix, a failed job is replayed as a new job with the same snapshot, so both runs had the same input; the old failure and the link between them are kept',
    gradedBy: [
      'check:replay-new-linked-job',
      'test:replay-links-new-job',
      'check:replay-keeps-snapshot',
      'test:replay-copies-snapshot',
      'test:http-replay-deadline-setting',
    ],
  },
  {
    section: 'implementation-decision',
    item: 'A queued job nobody claimed and a running job whose lease expired are recovered separately; a confirmed dispatch is not proof of work',
    gradedBy: [
      'check:queued-recovery-one-pending-event',
      'check:lease-recovered-after-sigkill',
      'test:confirm-round-one-statement',
    ],
  },
  {
    section: 'implementation-decision',
    item: "The persisted next_attempt_at governs every message, duplicates included; the broker's countdown is not the only backoff",
    gradedBy: [
      'check:retry-gate-holds-duplicates',
      'check:duplicate-wake-up-one-claim',
      'check:duplicate-wake-up-one-claim-one-update',
    ],
  },
  {
    section: 'implementation-decision',
    item: 'The publisher and the scanner run as supervised, long-lived processes, not as one-off scripts',
    gradedBy: ['test:scanner-supervised', 'test:scanner-process-recovers', 'test:scanner-sigterm-clean-exit'],
  },
  // The drill
  {
    section: 'drill',
    item: 'In turn: an expired lease, a duplicate before next_attempt_at, a sent but still queued job, a pending event suppressing another, three expiries and one replay',
    gradedBy: [
      'check:lease-recovered-after-sigkill',
      'check:retry-gate-holds-duplicates',
      'check:queued-recovery-one-pending-event',
      'check:three-expiries-dead-letter',
      'check:replay-new-linked-job',
      'check:replay-keeps-snapshot',
    ],
  },
  // Acceptance
  {
    section: 'acceptance',
    item: 'A live lease is never taken over by the scanner',
    gradedBy: ['test:live-lease-untouched', 'check:lease-recovered-after-sigkill'],
  },
  {
    section: 'acceptance',
    item: 'Exhausted attempts never turn into an endless redelivery loop',
    gradedBy: ['check:three-expiries-dead-letter'],
  },
  {
    section: 'acceptance',
    item: 'A replay records its source and does not erase the original failure',
    gradedBy: [
      'check:replay-new-linked-job',
      'check:replay-keeps-snapshot',
      'test:http-replay-key-refused-by-post',
      'test:http-post-key-refused-by-replay',
      'test:replay-key-names-one-job',
    ],
  },
  {
    section: 'acceptance',
    item: 'A dispatched but unclaimed job is recovered, not left to fail at its deadline',
    gradedBy: [
      'check:queued-recovery-one-pending-event',
      'check:lost-wake-up-fixed',
      'check:lost-wake-up-fixed-one-update',
    ],
  },
  {
    section: 'acceptance',
    item: 'Duplicate messages before the backoff has passed spend no attempt',
    gradedBy: [
      'check:retry-gate-holds-duplicates',
      'check:duplicate-wake-up-one-claim',
      'check:duplicate-wake-up-one-claim-one-update',
    ],
  },
  {
    section: 'acceptance',
    item: 'With no consumer, redispatch has a threshold and ends at the deadline: no endless fast redelivery',
    gradedBy: ['test:unclaimed-threshold-respected', 'check:queued-recovery-one-pending-event', 'test:queued-failed'],
  },
  // Troubleshooting
  {
    section: 'troubleshooting',
    item: 'A job shown as cancelled right after the request: sending a cancel is not proof the work stopped; show "cancel requested" until the durable state says cancelled',
    gradedBy: ['test:http-cancel-202-then-already', 'check:cancelled-never-publishes'],
  },
  {
    section: 'troubleshooting',
    item: 'A recovery script that moves every running job back to queued races live workers: recover only expired leases, and keep the old holder behind the token CAS',
    gradedBy: ['test:live-lease-untouched', 'check:lease-recovered-after-sigkill'],
  },
  {
    section: 'troubleshooting',
    item: 'The event was sent but the job stays queued: the message was lost or the worker failed before its claim; scan for unclaimed queued jobs with no pending event',
    gradedBy: [
      'check:queued-recovery-one-pending-event',
      'check:lost-wake-up-course-claim',
      'check:lost-wake-up-fixed',
      'check:lost-wake-up-fixed-one-update',
    ],
  },
  // The exercise
  {
    section: 'exercise',
    item: 'One job whose lease expires again and again: failed after the 3rd claim, never a 4th',
    gradedBy: [
      'test:exercise-scanner-runs-it',
      'test:exercise-third-expiry-fails',
      'test:exercise-cancel-wins',
      'test:exercise-deadline-fails',
      'check:three-expiries-dead-letter',
    ],
  },
]);
