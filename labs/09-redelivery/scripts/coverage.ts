// Lesson 09's checklist from the course, in our words, and what grades each item here
// (`pnpm lab coverage 09`; the table in docs/09-redelivery.md is written from this).
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  // Learning checks
  {
    section: 'learning-check',
    item: 'Two deliveries of one business job_id under different BullMQ job ids give the same path and sha256',
    gradedBy: ['check:duplicate-delivery-same-file'],
  },
  {
    section: 'learning-check',
    item: 'Reading the final file always gives the complete JSON, never half of it',
    gradedBy: ['check:no-torn-reads'],
  },
  {
    section: 'learning-check',
    item: 'The late-ack window: a worker killed after its side effects and before the completion makes them run again (a non-idempotent effect counts 2)',
    gradedBy: ['check:late-ack-window-duplicates', 'check:crash-after-rename-runs-again'],
  },
  {
    section: 'learning-check',
    item: 'What a lost worker costs depends on the setting: maxStalledCount 1 runs the job again, 0 fails it with its work already done',
    gradedBy: ['check:late-ack-window-duplicates', 'test:worker-lost-fails-without-rerun'],
  },
  // Implementation decisions
  {
    section: 'implementation-decision',
    item: 'Every delivery may repeat, so every side effect is keyed by the business job id, not by the delivery',
    gradedBy: ['check:duplicate-delivery-same-file', 'check:same-jobid-runs-once', 'test:one-file-per-business-id'],
  },
  {
    section: 'implementation-decision',
    item: 'Re-running the jobs of lost workers comes with a bound, so a poison job cannot circle for ever',
    gradedBy: ['check:poison-job-fails'],
  },
  {
    section: 'implementation-decision',
    item: 'The atomic rename only keeps readers from half files; which version wins is settled by the database in lesson 11',
    gradedBy: ['check:no-torn-reads', 'test:rename-last-writer-wins'],
  },
  // The drill
  {
    section: 'drill',
    item: 'Kill the worker between the written output and the completion, and watch the job run again instead of assuming it ran once',
    gradedBy: ['check:crash-after-rename-runs-again', 'check:late-ack-window-duplicates'],
  },
  // Acceptance
  {
    section: 'acceptance',
    item: 'Running a job again never leaves two different logical exports',
    gradedBy: ['check:duplicate-delivery-same-file', 'check:crash-after-rename-runs-again'],
  },
  {
    section: 'acceptance',
    item: 'The rule that the input snapshot never changes is stated, and a second delivery with another snapshot is refused',
    gradedBy: ['test:exercise-different-title-refused'],
  },
  {
    section: 'acceptance',
    item: 'The account of recovery promises neither exactly-once nor that nothing is lost',
    gradedBy: [
      'test:doc-claims-at-least-once',
      'check:late-ack-window-duplicates',
      'test:worker-lost-fails-without-rerun',
    ],
  },
  // Troubleshooting
  {
    section: 'troubleshooting',
    item: 'A fixed job id and the function still ran twice: an id dedupes the add, not the execution',
    gradedBy: ['check:same-jobid-runs-once', 'check:crash-after-rename-runs-again'],
  },
  {
    section: 'troubleshooting',
    item: 'A job that crashes its worker keeps coming back: the stall re-runs need a limit that fails it',
    gradedBy: ['check:poison-job-fails'],
  },
  // Try it yourself
  {
    section: 'exercise',
    item: 'Deliver one job_id again with a different title: the rename keeps whichever came last, the guard refuses the second',
    gradedBy: [
      'test:exercise-different-title-refused',
      'test:exercise-same-snapshot-reused',
      'test:rename-last-writer-wins',
    ],
  },
  // Deep dives (the Celery book's chapter on prefetch, late ack and visibility timeouts)
  {
    section: 'deep-dive',
    item: 'No prefetch in BullMQ: a worker that joins late starts a job while the first is still busy',
    gradedBy: ['check:no-prefetch'],
  },
  {
    section: 'deep-dive',
    item: 'Early against late acknowledgement: a job completed before its work is never run again after a crash (no duplicate, no recovery)',
    gradedBy: ['test:early-ack-no-second-run', 'check:late-ack-window-duplicates'],
  },
  {
    section: 'deep-dive',
    item: 'A job that outlasts its lock (the visibility timeout) runs twice; a sandboxed processor keeps the lock',
    gradedBy: ['check:blocked-loop-runs-twice', 'test:sandboxed-runs-once'],
  },
  {
    section: 'deep-dive',
    item: 'A settings table per queue (sms, order, report, pay): work that must not run twice is never re-run',
    gradedBy: ['check:queue-settings-rules', 'test:no-rerun-rule-names-queue'],
  },
  {
    section: 'deep-dive',
    item: 'A stall re-run raises attemptsStarted but not attemptsMade; the stall limit fails a job one start after its last execution',
    gradedBy: ['test:stall-rerun-not-an-attempt', 'test:worker-lost-fails-without-rerun'],
  },
]);
