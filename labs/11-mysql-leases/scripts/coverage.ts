// Lesson 11's checklist from the course, in our words, and what grades each item here
// (`pnpm lab coverage 11`; the table in docs/11-mysql-leases.md is written from this).
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  // Learning checks
  {
    section: 'learning-check',
    item: 'The job record outlives a restart of the API, and its payload is the product snapshot frozen at submission',
    gradedBy: ['check:get-reads-the-table', 'check:snapshot-frozen', 'check:http-submit-succeeds'],
  },
  {
    section: 'learning-check',
    item: 'While a lease is live, of all the claimers of a job exactly one gets a token',
    gradedBy: [
      'check:lease-script-first-claim',
      'check:lease-script-second-claim-refused',
      'check:twenty-claimers-one-token',
      'check:two-hundred-jobs-eight-claimers',
    ],
  },
  {
    section: 'learning-check',
    item: 'An old token cannot finish the job',
    gradedBy: [
      'check:lease-script-old-token-refused',
      'check:lease-script-old-token-still-refused',
      'check:zombie-changes-nothing',
    ],
  },
  {
    section: 'learning-check',
    item: 'No database transaction stays open while the worker works: the row is unlocked while the artifact is written',
    gradedBy: ['test:no-row-lock-during-write'],
  },
  {
    section: 'learning-check',
    item: 'Before next_attempt_at no duplicate delivery can claim the job',
    gradedBy: ['check:early-duplicates-claim-nothing'],
  },
  {
    section: 'learning-check',
    item: 'An expired running job is claimable again only after recovery turns it back to queued',
    gradedBy: ['check:lease-script-expired-not-claimable', 'check:lease-script-requeue-new-token'],
  },
  // Implementation decisions
  {
    section: 'implementation-decision',
    item: 'The business job and the BullMQ message are separate things: the state lives in MySQL, the message carries only the job id',
    gradedBy: ['check:worker-gets-only-job-id', 'check:redis-loss-changes-nothing', 'test:wake-up-only-job-id'],
  },
  {
    section: 'implementation-decision',
    item: 'The input snapshot is frozen; each lease writes its own output file, and only the current token can publish one',
    gradedBy: ['check:snapshot-frozen', 'check:http-submit-succeeds', 'test:zombie-file-not-result'],
  },
  {
    section: 'implementation-decision',
    item: "Who may export what should come from the shop's own user permissions; this single-user local exercise must not be deployed as a multi-user API",
    docOnly:
      'the lab has no users or accounts, so there is no permission to check; the doc says the API must not be exposed as it is',
  },
  {
    section: 'implementation-decision',
    item: 'finish also checks the business deadline: a lease that has not run out does not allow publishing after the deadline',
    gradedBy: ['test:finish-refused-after-deadline'],
  },
  {
    section: 'implementation-decision',
    item: 'Whether a job may be claimed is read from its row (status, lease, next_attempt_at), never from whether the broker delivered it again',
    gradedBy: ['check:early-duplicates-claim-nothing', 'check:completed-means-delivered'],
  },
  {
    section: 'implementation-decision',
    item: 'Connect, per-query (read and write), row-lock and statement time limits are set separately, so no call waits for ever on a database that stops answering',
    gradedBy: [
      'test:connect-timeout',
      'test:query-timeout-closes-connection',
      'test:session-settings',
      'test:lock-wait-gives-up',
      'test:statement-time-limit',
      'test:database-down-one-line',
    ],
  },
  {
    section: 'implementation-decision',
    item: 'A broken connection or a lost answer to a commit proves no rollback: a claim or finish repeated after a timeout affects its row once, and a client retry carries an Idempotency-Key and finds the job it already made',
    gradedBy: [
      'test:query-timeout-finish-retried-once',
      'test:query-timeout-half-claim-rolled-back',
      'test:query-timeout-claim-retried-once',
      'check:idempotent-submission',
    ],
  },
  // The drill
  {
    section: 'drill',
    item: "Expire a dedicated job's lease: the claim and the old token's finish both fail; requeue it by hand, claim again, compare the two tokens and the result_ref",
    gradedBy: [
      'check:lease-script-expired-not-claimable',
      'check:lease-script-old-token-refused',
      'check:lease-script-requeue-new-token',
      'check:lease-script-old-token-still-refused',
      'check:lease-script-new-token-publishes',
    ],
  },
  // Acceptance
  {
    section: 'acceptance',
    item: 'A worker that lost its lease cannot publish its result',
    gradedBy: ['check:zombie-changes-nothing', 'test:zombie-file-not-result'],
  },
  {
    section: 'acceptance',
    item: 'No database transaction spans the file work',
    gradedBy: ['test:no-row-lock-during-write', 'test:no-claim-no-file'],
  },
  {
    section: 'acceptance',
    item: 'attempts and the deadline come from the stored row: a redelivered message does not reset them',
    gradedBy: [
      'check:completed-means-delivered',
      'check:lease-script-requeue-new-token',
      'check:early-duplicates-claim-nothing',
    ],
  },
  // Troubleshooting
  {
    section: 'troubleshooting',
    item: "An old worker overwrites the new worker's result: finish matched the job id only, or every attempt wrote the same file; put the token in the file name and in the finish's conditions",
    gradedBy: ['test:finish-without-token-overwrites', 'test:zombie-file-not-result'],
  },
  {
    section: 'troubleshooting',
    item: 'Bull Board says completed but the row is still queued or running: the delivery claimed nothing or its finish lost; users read export_jobs, the worker logs claimed and published, and pnpm submit says what the row shows (its holder and lease, or never claimed)',
    gradedBy: [
      'check:completed-means-delivered',
      'check:redis-loss-changes-nothing',
      'test:submit-held-lease-named',
      'test:submit-passed-lease-named',
      'test:submit-unclaimed-asks-for-worker',
    ],
  },
  // The exercise
  {
    section: 'exercise',
    item: 'renewLease extends only a live lease of the current token (running, not cancelled, never past the deadline); extending to the same instant is not a lost lease',
    gradedBy: ['test:exercise-same-instant-not-lost', 'test:exercise-expired-lease-stays-lost'],
  },
]);
