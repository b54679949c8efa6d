// Lesson 06's checklist from the course, in our words, and what grades each item here
// (`pnpm lab coverage 06`; the table in docs/06-process-pool.md is written from this).
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  // Learning checks
  {
    section: 'learning-check',
    item: 'Serial and pool scoring give the same scores in the same order',
    gradedBy: ['check:serial-equals-pool'],
  },
  {
    section: 'learning-check',
    item: 'Workers are fresh processes running their own entry file, the CPU function lives in an importable module, and importing an entry file starts nothing',
    gradedBy: ['check:pool-reused', 'check:function-refused-before-send', 'test:import-starts-nothing'],
  },
  {
    section: 'learning-check',
    item: 'Both timings are measured and reported; the pool is never assumed to be faster',
    gradedBy: ['check:timings-reported'],
  },
  // Implementation decisions
  {
    section: 'implementation-decision',
    item: 'Measure whether the work keeps the CPU busy before choosing how many processes',
    gradedBy: ['test:scoring-is-cpu-bound', 'check:timings-reported', 'test:pool-size-bounded'],
  },
  {
    section: 'implementation-decision',
    item: 'Workers get bounded plain-data rows, never live objects such as functions or connections',
    gradedBy: [
      'check:function-refused-before-send',
      'test:function-in-row-refused',
      'test:class-instance-loses-methods',
    ],
  },
  {
    section: 'implementation-decision',
    item: 'The pool lives from start-up to shutdown, and a failed batch fails its job so it can be run again',
    gradedBy: [
      'check:pool-reused',
      'check:lost-worker-fails-batch',
      'test:failed-batch-fails-job',
      'test:closed-pool-leaves-no-process',
    ],
  },
  // The course's drill, and ours
  {
    section: 'drill',
    item: 'A function that cannot be sent fails the export visibly, and no success result appears',
    gradedBy: ['check:function-refused-before-send'],
  },
  {
    section: 'drill',
    item: 'A worker killed mid-batch fails the whole batch and its job; the pool replaces the worker',
    gradedBy: [
      'check:lost-worker-fails-batch',
      'check:lost-worker-replaced',
      'test:lost-worker-replaced-by-new-process',
    ],
  },
  // Acceptance
  {
    section: 'acceptance',
    item: 'Pool results can be checked against the serial version, and are before any timing counts',
    gradedBy: ['check:serial-equals-pool', 'check:timings-reported', 'test:exercise-refuses-different-scores'],
  },
  {
    section: 'acceptance',
    item: 'CPU work is not sped up by making it async: the rows still run one after another',
    gradedBy: ['test:async-does-not-speed-up-cpu'],
  },
  {
    section: 'acceptance',
    item: 'What crosses to a worker and how the worker starts is plain and repeatable: same rows, same scores, every run',
    gradedBy: [
      'test:row-is-plain-data',
      'test:same-row-same-score',
      'test:json-channel-drops-functions',
      'check:serial-equals-pool',
    ],
  },
  // Troubleshooting: the mistake shows the symptom, the fix removes it
  {
    section: 'troubleshooting',
    item: 'A function in the work fails with "could not be cloned": keep code in an importable module and send only data',
    gradedBy: ['check:function-refused-before-send', 'test:function-in-row-refused'],
  },
  {
    section: 'troubleshooting',
    item: 'A pool per request multiplies processes: one shared pool keeps every request on its processes',
    gradedBy: ['check:pool-reused', 'test:requests-share-one-pool'],
  },
  // Try it yourself
  {
    section: 'exercise',
    item: 'At 10 and at 2000 rounds, with the same rows and pool: scores checked first, then both timings and the start-up share recorded',
    gradedBy: ['test:exercise-compare-rounds', 'test:exercise-refuses-different-scores'],
  },
  // Beyond the course's checklist
  {
    section: 'deep-dive',
    item: "A worker that cannot start fails start() with the worker's own reason, printed once, not over the parent's output",
    gradedBy: [
      'test:start-fails-with-worker-reason',
      'test:worker-errors-captured',
      'test:unknown-fault-point-refused',
    ],
  },
  {
    section: 'deep-dive',
    item: 'A check that runs out of time leaves no worker process behind',
    gradedBy: ['test:timed-out-check-leaves-no-process'],
  },
]);
