// The failure matrix's rows, as words: the course's step 4 table (fault | operation | what to
// check), in the course's order, plus the drill's closing step (one fault-free export as a
// regression). For each row: how the lab makes the fault FOR REAL, what passes, and what its
// recovery time measures. The code that runs each row is in rows.ts; this file imports
// nothing, so the summary (and a reader) can list the rows without loading the labs.
import type { RecoveryPath } from './budget.ts';
import type { RowKind } from './evidence.ts';

export interface MatrixCase {
  id: string;
  title: string;
  /** The course's row: fault | operation | what to check (in English). */
  courseRow: string;
  kind: RowKind;
  /** How the fault is made here. */
  fault: string;
  /** What passes (the judge's expectation, in words). */
  expected: string;
  /** What recovery_seconds measures, or, in parentheses, why the row has none. */
  recoveryMeasure: string;
  /** Which timers bound its recovery (src/matrix/budget.ts); none for a row without a recovery. */
  budget?: RecoveryPath;
}

export const MATRIX_CASES: readonly MatrixCase[] = [
  {
    id: 'db-fails-before-commit',
    title: 'The database transaction fails before its COMMIT',
    courseRow:
      'DB transaction, before commit | throw inside this submit | the job and its outbox event roll back together',
    kind: 'fault-point',
    fault: 'LAB_FAULTS=after-job-insert:throw:once (lesson 12 submit fault point, through admitTraced)',
    expected: 'the submit throws; no job row, no outbox row, the admission gate counter unchanged',
    recoveryMeasure: '(nothing to recover: the transaction rolled back)',
  },
  {
    id: 'broker-down-at-submit',
    title: 'The broker is unreachable when the job is submitted',
    courseRow:
      'Broker unavailable | stop the local Redis, then submit | the job and its outbox event are kept, sent_at empty',
    kind: 'action',
    fault:
      'action: the publisher connects to a port where nothing listens (connection refused); the shared lab Redis is never stopped',
    expected:
      'the job is accepted; its event stays unsent (sent_at NULL, last_error set, send_attempts >= 1); a publisher on the real Redis then sends it and the job succeeds with its artifact verified',
    recoveryMeasure: 'broker back -> succeeded',
    budget: 'publish',
  },
  {
    id: 'sent-not-confirmed',
    title: 'The wake-up was sent but its confirmation was lost',
    courseRow:
      'Published but not marked sent | skip one confirmation write-back | may be published again, the business result still protected by the CAS',
    kind: 'fault-point',
    fault:
      "LAB_FAULTS=after-send:throw:always (lesson 12 publisher fault point) on a publisher stopped after its first send; the first wake-up's completed BullMQ job removed (its retention's effect) before a second publisher resends the event",
    expected:
      "the event is sent again once its claim has passed (send_attempts >= 2) and delivered a second time; the second delivery claims nothing (the claim's compare-and-set); ONE published result: attempts 1, result_ref the first claim's file, one artifact, verified",
    recoveryMeasure: 'lost confirmation -> the event confirmed sent',
    budget: 'publish',
  },
  {
    id: 'worker-killed-holding-lease',
    title: 'A worker process is killed while it holds the lease',
    courseRow:
      'Worker exits holding the lease | kill this isolated worker process | recovered after expiry, attempts increase',
    kind: 'fault-point',
    fault: 'LAB_FAULTS=after-claim:hang on a real worker process, then SIGKILL once it claimed',
    expected:
      'the row stays running until its lease passes; the scanner requeues it (lease_expired) with a new event; a second worker finishes: succeeded, attempts 2, artifact verified',
    recoveryMeasure: 'kill -> succeeded',
    budget: 'lease',
  },
  {
    id: 'old-token-late',
    title: 'A holder whose lease was taken over finishes late with its old token',
    courseRow:
      'Old token arrives late | after a new claim, finish with the old token | finish=False, result_ref unchanged',
    kind: 'action',
    fault:
      'action: claim (token A), lease expires, scanner requeues, claim again (token B), finish with A, then with B',
    expected:
      'finish with A answers false and leaves result_ref unchanged; finish with B answers true; the artifact of B is verified',
    recoveryMeasure: '(a refusal: the old holder is turned away)',
  },
  {
    id: 'cancel',
    title: 'A running job is cancelled',
    courseRow: "Cancel | set this job's cancel_requested | finally cancelled, no success result published",
    kind: 'action',
    fault: 'action: requestCancel while a worker writes the export chunk by chunk',
    expected:
      'the worker stops at a chunk boundary, a finish with the job token refuses, the scanner moves the job to cancelled: no artifact, result_ref null',
    recoveryMeasure: 'cancel requested -> cancelled',
    budget: 'lease',
  },
  {
    id: 'attempts-exhausted',
    title: 'Every attempt expires',
    courseRow: 'Attempts exhausted | three claims each fail or expire | failed and a dead letter, no fourth claim',
    kind: 'action',
    fault: 'action: three claims whose leases expire, the scanner after each',
    expected:
      'requeued, requeued, then failed (attempts_exhausted) with one dead letter, the gate left; a fourth claim gets nothing',
    recoveryMeasure: '(a terminal failure: nothing is recovered)',
  },
  {
    id: 'result-cache-expired',
    title: "BullMQ no longer holds the wake-up's result",
    courseRow: 'Result cache expired | shorten the local result_expires | the MySQL state can still be queried',
    kind: 'action',
    fault: "action: the completed wake-up removed with job.remove() (what removeOnComplete's age does after an hour)",
    expected: 'queue.getJob(event id) is undefined, yet GET /exports/:id answers 200 succeeded from MySQL',
    recoveryMeasure: '(nothing to recover: the record is in MySQL)',
  },
  {
    id: 'queue-full',
    title: 'The service is full',
    courseRow: 'Queue full | a small temporary capacity, concurrent submits | 503, no false 202',
    kind: 'action',
    fault: 'action: admission limit 2, five concurrent POST /exports',
    expected: 'exactly two 202 and three 503 with Retry-After; exactly two job rows',
    recoveryMeasure: '(a refusal)',
  },
  {
    id: 'same-slot-twice',
    title: 'One periodic slot is scheduled twice at once',
    courseRow: 'Same periodic slot twice | concurrent scheduling of the same slot | only one periodic job is created',
    kind: 'action',
    fault: 'action: two concurrent scheduleOnce calls for one slot',
    expected: 'one job, one slot row; both calls name the same job',
    recoveryMeasure: '(a refusal of the duplicate)',
  },
  {
    id: 'signal-crosses-minute',
    title: 'One periodic signal is handled in two different minutes',
    courseRow:
      'Periodic signal redelivered across a minute | one simulated signal, two execution minutes | the current model creates two slots, and does not claim exactly-once for the signal',
    kind: 'action',
    fault:
      "action: one Job Scheduler run (one BullMQ id) handled at hh:mm:59 and hh:mm+1:01 with the course's execution-minute slot",
    expected:
      'exactly two slots and two jobs: the documented boundary (the model does not claim exactly-once for the signal)',
    recoveryMeasure: '(a documented boundary, not a recovery)',
  },
  {
    id: 'dispatched-never-claimed',
    title: 'A job was dispatched and nobody claimed it',
    courseRow:
      'Dispatched but never claimed | a dedicated job, sent and still queued past the threshold | the scanner writes a new outbox event; it completes after recovery',
    kind: 'action',
    fault: 'action: the sent wake-up removed from Redis before any worker ran (the message is lost)',
    expected:
      'once the unclaimed threshold passed the scanner writes ONE new event; with a worker the job succeeds, attempts 1, artifact verified',
    recoveryMeasure: 'threshold passed -> succeeded',
    budget: 'unclaimed',
  },
  {
    id: 'fails-before-claim',
    title: 'The worker fails before its claim',
    courseRow:
      'Failure before the claim | the worker throws a connection error before claiming | the queued path can dispatch again',
    kind: 'fault-point',
    fault:
      "LAB_FAULTS=before-claim:throw:once on lesson 16's worker (its first delivery throws before the claim, as a lost database connection would)",
    expected:
      'the delivery fails, the row stays queued with attempts 0; the scanner redispatches after the threshold; the job succeeds with attempts 1',
    recoveryMeasure: 'failed delivery -> succeeded',
    budget: 'unclaimed',
  },
  {
    id: 'duplicate-during-backoff',
    title: 'A duplicate message arrives during the retry backoff',
    courseRow:
      'Duplicate message during backoff | next_attempt_at in the future, claim directly twice | both return nothing, attempts unchanged',
    kind: 'action',
    fault: 'action: next_attempt_at set 2 s ahead, two direct claims',
    expected: 'both claims get nothing; the row stays queued, attempts unchanged (0)',
    recoveryMeasure: '(a refusal: the backoff holds)',
  },
  {
    id: 'pending-event-suppresses',
    title: 'A pending event keeps the scanner from adding another',
    courseRow:
      'Pending event still there | run the scanner repeatedly on the same queued job | no further recovery event while one is pending',
    kind: 'action',
    fault: 'action: a queued job quiet for 61 s whose event is still unsent (no publisher), the scanner twice',
    expected: 'neither scan writes a new event: one event, still unsent; attempts 0',
    recoveryMeasure: '(nothing to recover: the pending event will wake it)',
  },
  {
    id: 'regression-clean-export',
    title: 'After the matrix: one export with no fault',
    courseRow:
      'Drill closing step | every component and setting back to normal, one fault-free export | succeeded with a verified artifact',
    kind: 'regression',
    fault: 'none: POST /exports, the publisher, a worker',
    expected: '202, then succeeded on attempt 1 with one published delivery, GET answers succeeded, artifact verified',
    recoveryMeasure: '(no fault, no recovery)',
  },
];

/** The case with this id; throws naming the ids there are. */
export function matrixCase(id: string): MatrixCase {
  const found = MATRIX_CASES.find((c) => c.id === id);
  if (!found) throw new Error(`no matrix row "${id}"; the rows are: ${MATRIX_CASES.map((c) => c.id).join(', ')}`);
  return found;
}
