// Lesson 02's checklist, in our words, and what grades each item: `check:<id>` is a
// verify check (scripts/checks.ts), `test:<id>` a vitest test tagged [test:<id>].
// `pnpm lab coverage 02` checks it; `--write` puts the table in docs/02-bounded-async.md.
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  {
    section: 'learning-check',
    item: 'The normal run returns all 20 products, each under its own id, read by exactly 4 consumers',
    gradedBy: ['check:batch-completes-in-order'],
  },
  {
    section: 'learning-check',
    item: 'A 150 ms budget ends in "batch timed out" and all 4 consumers clean up',
    gradedBy: ['check:timeout-fails-job', 'check:timeout-closes-consumers'],
  },
  {
    section: 'learning-check',
    item: 'One failing product fails the whole batch; nothing that looks like a complete result comes back',
    gradedBy: ['check:failing-product-fails-job', 'check:failure-closes-consumers'],
  },
  {
    section: 'implementation-decision',
    item: 'Queue capacity, consumer count and reads at once are three separate settings',
    gradedBy: ['test:limits-set-separately'],
  },
  {
    section: 'implementation-decision',
    item: "All-or-nothing versus partial success is the contract's choice; this lab's contract is all or nothing",
    gradedBy: ['check:timeout-no-partial-result', 'check:failing-product-fails-job'],
  },
  {
    section: 'implementation-decision',
    item: 'The batch has a deadline and each read has a time limit of its own',
    gradedBy: ['test:read-has-own-timeout', 'check:timeout-fails-job'],
  },
  {
    section: 'implementation-decision',
    item: 'A timeout on our side does not prove the product service did not act on the request',
    gradedBy: ['test:timeout-not-proof-of-no-effect'],
  },
  {
    section: 'drill',
    item: 'Make product 3 fail, then run with a 150 ms budget; note how consumers close and what the batch returns each time',
    gradedBy: [
      'check:failure-closes-consumers',
      'check:timeout-closes-consumers',
      'test:drill-cli-fail-item',
      'test:drill-cli-timeout',
    ],
  },
  {
    section: 'acceptance',
    item: 'Peak reads in flight at most 2 and queue length at most 4, on the normal run and on both failure paths',
    gradedBy: [
      'check:reads-at-once-limited',
      'check:queue-bounded',
      'check:timeout-keeps-limits',
      'check:failure-keeps-limits',
    ],
  },
  {
    section: 'acceptance',
    item: 'Neither a failure nor a timeout leaves a task running that nobody waits for',
    gradedBy: ['check:timeout-closes-consumers', 'check:failure-aborts-reads', 'test:group-waits-for-cleanup'],
  },
  {
    section: 'acceptance',
    item: 'Partial data is never recorded as a completed export',
    gradedBy: ['check:timeout-no-partial-result', 'check:failing-product-fails-job'],
  },
  {
    section: 'troubleshooting',
    item: 'Memory grows although a limiter caps the reads: one pending call per product was created up front',
    gradedBy: ['test:limiter-alone-piles-up', 'check:queue-bounded'],
  },
  {
    section: 'troubleshooting',
    item: 'The batch keeps running after the timeout: a read ignores the abort or never reaches an await',
    gradedBy: ['test:ignored-abort-keeps-running', 'check:failure-aborts-reads'],
  },
  {
    section: 'exercise',
    item: 'Count reads in flight and their peak around the real read: at most 2 on the normal and the timeout path, 0 at the end',
    gradedBy: ['test:exercise-peak-two', 'test:exercise-timeout-counted-out'],
  },
]);
