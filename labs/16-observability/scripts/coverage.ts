// Lesson 16's checklist from the course, in our words, and what grades each item here
// (`pnpm lab coverage 16`; the table in docs/16-observability.md is written from this).
// The failure matrix's rows are checks of their own (`matrix-<row>`, one per course row).
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  // Learning checks
  {
    section: 'learning-check',
    item: 'A fault case is marked passed only with a real job id, times, states and recovery evidence; a row not run says not_run with its reason',
    gradedBy: [
      'check:matrix-worker-killed-holding-lease',
      'check:matrix-dispatched-never-claimed',
      'check:matrix-broker-down-at-submit',
      'test:matrix-summary-not-run',
      'test:matrix-writes-evidence',
    ],
  },
  {
    section: 'learning-check',
    item: "A succeeded job's artifact equals its snapshot by value; a failed or cancelled job is never published, not even by an old token",
    gradedBy: [
      'check:terminal-state-matches-artifact',
      'check:matrix-old-token-late',
      'check:matrix-cancel',
      'test:terminal-compares-values',
    ],
  },
  {
    section: 'learning-check',
    item: "An expired result in BullMQ does not make the business record 404; the capacity limit and the schedule's de-duplication were run too",
    gradedBy: ['check:matrix-result-cache-expired', 'check:matrix-queue-full', 'check:matrix-same-slot-twice'],
  },
  {
    section: 'learning-check',
    item: 'Sent-but-unclaimed, a duplicate during the backoff and a signal redelivered across minutes each have a case of their own',
    gradedBy: [
      'check:matrix-dispatched-never-claimed',
      'check:matrix-duplicate-during-backoff',
      'check:matrix-signal-crosses-minute',
    ],
  },
  {
    section: 'learning-check',
    item: 'A redispatch alone never adds an attempt; waits have a persisted time and a deadline bound',
    gradedBy: [
      'check:matrix-fails-before-claim',
      'check:matrix-duplicate-during-backoff',
      'check:matrix-pending-event-suppresses',
      'check:wait-bounded-by-deadline',
      'test:before-claim-fault-fails-delivery',
    ],
  },
  // Implementation decisions
  {
    section: 'implementation-decision',
    item:
      'Measurable targets for acceptance, start, completion and recovery come first; thresholds are set from them: an event unsent past its threshold is an alert, ' +
      "each queue's start and finish p95 is compared with its target, each recovery with its budget",
    gradedBy: [
      'check:outbox-alert-raised',
      'check:latency-targets-compared',
      'test:latency-targets-course-scale',
      'test:alert-rules-promtool',
      'test:matrix-budgets-from-course-timings',
      'test:matrix-recovery-over-budget-fails',
      'check:matrix-worker-killed-holding-lease',
      'check:matrix-dispatched-never-claimed',
    ],
  },
  {
    section: 'implementation-decision',
    item: 'Logs are correlated by the business id (plus message id, lease token, attempt, one trace), never by product content',
    gradedBy: [
      'check:phase-logs-follow-one-job',
      'check:logs-hold-no-description-or-credential',
      'check:trace-survives-recovery',
      'test:phase-log-error-without-sql',
    ],
  },
  {
    section: 'implementation-decision',
    item: 'A drill that did not run is recorded as not_run; only a real record supports a pass',
    gradedBy: ['test:matrix-summary-not-run', 'test:matrix-writes-evidence'],
  },
  // The drill
  {
    section: 'drill',
    item: 'Every row of the matrix, one at a time, each with a fresh job; then every component restored and one fault-free export as a regression',
    gradedBy: [
      'check:matrix-regression-clean-export',
      'check:matrix-worker-killed-holding-lease',
      'check:matrix-sent-not-confirmed',
    ],
  },
  // Acceptance
  {
    section: 'acceptance',
    item: 'Every recovery conclusion rests on observed evidence: an evidence record and a timeline per row',
    gradedBy: [
      'check:matrix-worker-killed-holding-lease',
      'check:matrix-sent-not-confirmed',
      'test:timeline-well-formed',
    ],
  },
  {
    section: 'acceptance',
    item: 'An accepted job can always be found: waiting to be published, running, or in a clear terminal state',
    gradedBy: ['check:monitoring-queries-answer', 'check:metrics-served', 'test:monitoring-oldest-active-listed'],
  },
  {
    section: 'acceptance',
    item: 'Type checks or in-process function tests are never presented as proof of production reliability: the matrix runs real processes, broker and database',
    gradedBy: ['check:matrix-worker-killed-holding-lease', 'check:matrix-broker-down-at-submit'],
  },
  {
    section: 'acceptance',
    item: 'Recovery covers both stuck states (queued and running); the slot de-duplication claims no more than the implementation does',
    gradedBy: [
      'check:matrix-worker-killed-holding-lease',
      'check:matrix-dispatched-never-claimed',
      'check:matrix-same-slot-twice',
      'check:matrix-signal-crosses-minute',
    ],
  },
  // Troubleshooting
  {
    section: 'troubleshooting',
    item: 'A live worker heartbeat is not health: watch the oldest wait, expired leases, failures and completion times',
    gradedBy: [
      'check:monitoring-queries-answer',
      'check:metrics-served',
      'check:latency-targets-compared',
      'test:latency-waiting-job-over-target',
    ],
  },
  {
    section: 'troubleshooting',
    item: "Celery's eager mode (BullMQ: calling the processor directly) bypasses delivery: broker recovery is shown only with a real broker and worker",
    gradedBy: ['check:matrix-broker-down-at-submit', 'check:matrix-sent-not-confirmed'],
  },
  // Try it yourself
  {
    section: 'exercise',
    item: 'Name the three ids of the "sent but not confirmed" case and judge from the logs, and from the file result_ref names (equal to the snapshot), that the duplicates did not change the result',
    gradedBy: [
      'test:exercise-duplicates-harmless',
      'test:exercise-old-token-published',
      'test:exercise-two-publications',
      'test:exercise-result-equals-snapshot',
      'test:exercise-result-compared-by-value',
    ],
  },
  // The failure matrix (step 4): each of the course's 15 rows is an item of its own, graded by
  // its own check, so a row that disappears fails the coverage (its check is gone, or the
  // section falls under the course's 15).
  ...(
    [
      [
        'db-fails-before-commit',
        'A transaction that fails before its COMMIT rolls the job and its outbox event back together',
      ],
      [
        'broker-down-at-submit',
        'With the broker down a submitted job and its event are kept, the event unsent, and sent once the broker is back',
      ],
      [
        'sent-not-confirmed',
        'An event sent but never marked sent is sent and delivered again; the claim and the finish keep one published result',
      ],
      [
        'worker-killed-holding-lease',
        'A worker process killed while it holds the lease: the job is recovered after the lease expires, with one more attempt',
      ],
      ['old-token-late', 'An old token that finishes after a new claim is refused and leaves result_ref unchanged'],
      ['cancel', 'A cancelled running job ends cancelled and never publishes a success'],
      ['attempts-exhausted', 'Three claims that all expire end the job failed, with a dead letter and no fourth claim'],
      ['result-cache-expired', 'With its result gone from BullMQ, the job is still answered from MySQL'],
      ['queue-full', 'A full service answers 503 to concurrent submits, never a false 202'],
      ['same-slot-twice', 'One periodic slot scheduled twice at once creates one job'],
      [
        'signal-crosses-minute',
        'One periodic signal handled in two minutes makes two slots: the documented boundary, no exactly-once claim',
      ],
      [
        'dispatched-never-claimed',
        'A job sent but never claimed past the threshold gets a new outbox event from the scanner and completes',
      ],
      [
        'fails-before-claim',
        'A worker that fails before its claim leaves the job queued, and the queued path dispatches it again',
      ],
      ['duplicate-during-backoff', 'Duplicate claims while next_attempt_at is ahead get nothing and add no attempt'],
      ['pending-event-suppresses', 'The scanner run again on a queued job adds no event while one is still pending'],
    ] as const
  ).map(([row, item]) => ({ section: 'failure-matrix' as const, item, gradedBy: [`check:matrix-${row}`] })),
  // Deep dive: result backends, lineage, retention, growth
  {
    section: 'deep-dive',
    item: 'A fan-out export as a BullMQ flow: the parent runs after its children and combines their results',
    gradedBy: ['check:flow-parent-runs-after-children', 'test:flow-bundle-manifest'],
  },
  {
    section: 'deep-dive',
    item: 'Parent/child lineage is queried by id, both ways',
    gradedBy: ['check:flow-lineage-by-id'],
  },
  {
    section: 'deep-dive',
    item: "A child's failure has an explicit policy: wait, fail, ignore, remove or continue",
    gradedBy: ['check:flow-child-failure-explicit', 'test:flow-default-policy-fails-bundle'],
  },
  {
    section: 'deep-dive',
    item: 'Result retention is configured, and its effect on key counts is measured',
    gradedBy: ['check:flow-results-retained-as-configured', 'test:flow-count-bundle-keys'],
  },
  {
    section: 'deep-dive',
    item: "Growth is watched: sent events, old terminal jobs and killed writers' temp files are pruned; table sizes and Redis key counts per prefix are metrics",
    gradedBy: [
      'check:housekeeping-prunes-only-expired',
      'check:metrics-served',
      'test:prune-respects-retention',
      'test:orphan-grace-protects-fresh-file',
      'test:temp-file-grace-spares-live-writer',
    ],
  },
]);
