// Lesson 07's checklist items, in our words, and what grades each one (see lab-kit's
// coverage.ts). `pnpm lab coverage 07` checks every id exists and writes the lesson
// doc's table from this list.
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  // Learning checks
  {
    section: 'learning-check',
    item: 'Each of the four kinds of work has an executor, a delivery and a stated limit',
    gradedBy: ['test:record-places-four-kinds', 'check:decision-record-backed', 'test:durable-needs-task-queue'],
  },
  {
    section: 'learning-check',
    item: "Each placement is backed by a value the student's own run of labs 01-06 observed",
    gradedBy: [
      'test:record-values-match-your-run',
      'test:value-must-be-in-run',
      'check:earlier-labs-passed',
      'check:decision-record-backed',
    ],
  },
  {
    section: 'learning-check',
    item: 'A message encodes to JSON and carries no connection object or credentials',
    gradedBy: ['check:valid-message-accepted', 'check:credentials-refused', 'check:round-trip-exact'],
  },
  {
    section: 'learning-check',
    item: 'A message stays under 64 KiB, and its size is checked before anything else',
    gradedBy: ['check:oversize-refused', 'test:size-before-validation', 'test:big-message-refused-fast'],
  },
  {
    section: 'learning-check',
    item: "The record names the worker's platform (Linux or WSL2) and the job's source of truth",
    gradedBy: ['test:record-names-queue-runtime', 'test:worker-platform-required', 'check:decision-record-backed'],
  },
  {
    section: 'learning-check',
    item: 'BullMQ is compared with other Node job queues on version, timeouts, retry default and result retention',
    gradedBy: ['check:queue-comparison-complete', 'test:queue-comparison-in-doc'],
  },
  // Implementation decisions
  {
    section: 'implementation-decision',
    item: 'A queue is chosen on its platform, its upkeep and how it recovers from failure',
    gradedBy: ['check:queue-comparison-complete'],
  },
  {
    section: 'implementation-decision',
    item: 'One JSON message keyed by the business job_id, so the executor behind it can change',
    gradedBy: ['check:round-trip-exact', 'check:valid-message-accepted', 'test:job-id-must-be-uuid'],
  },
  {
    section: 'implementation-decision',
    item: 'The queue is not the job database, and outside effects still need idempotency',
    gradedBy: ['test:record-names-queue-runtime', 'test:exactly-once-refused', 'test:sdk-call-safeguards'],
  },
  // The drill
  {
    section: 'drill',
    item: 'Work run inside the API process is gone after the process is killed; the durable row must cite that measurement',
    gradedBy: ['check:earlier-labs-passed', 'check:decision-record-backed', 'test:record-values-match-your-run'],
  },
  {
    section: 'drill',
    item: 'At the boundary, pnpm check:message accepts the good sample and refuses each bad one with exit 1',
    gradedBy: ['check:checker-script-drill', 'test:drill-leaves-no-temp-folder'],
  },
  // Acceptance
  {
    section: 'acceptance',
    item: 'async syntax is not offered as durable delivery: work that must outlive the API goes through a queue',
    gradedBy: ['test:durable-needs-task-queue', 'test:restart-needs-queue', 'test:record-places-four-kinds'],
  },
  {
    section: 'acceptance',
    item: 'The platform is explicit: the worker runs on Linux or WSL2, native Windows is not claimed',
    gradedBy: ['test:worker-platform-required', 'test:record-names-queue-runtime'],
  },
  {
    section: 'acceptance',
    item: "Each move to another row rests on a measured constraint, quoted from the student's run",
    gradedBy: ['test:value-must-be-in-run', 'test:record-values-match-your-run', 'check:decision-record-backed'],
  },
  // Troubleshooting
  {
    section: 'troubleshooting',
    item: 'Claiming the queue runs each task exactly once (acks, redelivery and side effects ignored)',
    gradedBy: ['test:exactly-once-refused'],
  },
  {
    section: 'troubleshooting',
    item: 'Reading an expired cached result as a job that never existed',
    gradedBy: ['test:result-cache-not-job-life'],
  },
  {
    section: 'troubleshooting',
    item: "A cited check was renamed or dropped: the grader lists the lab's check ids",
    gradedBy: ['test:renamed-check-lists-ids'],
  },
  {
    section: 'troubleshooting',
    item: 'A value copied from an earlier run no longer matches: the grader shows what the run observed',
    gradedBy: ['test:value-must-be-in-run'],
  },
  // The exercise
  {
    section: 'exercise',
    item: 'A 3 s synchronous SDK call that must survive an API restart: a queue, a worker thread, a timeout, an idempotency key, durable state',
    gradedBy: ['test:sdk-call-placement', 'test:sdk-call-safeguards'],
  },
  {
    section: 'exercise',
    item: "The student's decision record, filled in from their own run and graded against it",
    gradedBy: [
      'test:record-places-four-kinds',
      'test:record-values-match-your-run',
      'test:record-names-queue-runtime',
      'test:template-names-empty-cells',
    ],
  },
  // Deep dive
  {
    section: 'deep-dive',
    item: 'The labs run MySQL 8.4 with Docker and MariaDB without it; the record says which and the doc what changes',
    gradedBy: ['test:database-named-as-infra-runs', 'test:record-names-queue-runtime'],
  },
]);
