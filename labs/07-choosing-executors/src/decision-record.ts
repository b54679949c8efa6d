// The decision record as data: where each kind of export work runs, why, and which
// measurement from an earlier lab backs the choice. decision-record.md says the same
// in prose; the verify check reads this file and looks the evidence up in the
// earlier labs' .lab-result.json files, so a claim without a measurement fails.

/** Where a piece of work runs in Node: the event loop, a worker thread, or another OS process. */
export type Executor = 'event-loop' | 'worker-thread' | 'separate-process';

/**
 * How the work reaches its executor: handed over directly by the process that took
 * the request (and lost with it), or through a task queue that outlives that process.
 */
export type Delivery = 'direct' | 'task-queue';

export type WorkKind = 'io-wait' | 'blocking-call' | 'cpu-bound' | 'durable';

export const WORK_KINDS: readonly WorkKind[] = ['io-wait', 'blocking-call', 'cpu-bound', 'durable'];

/** A measurement an earlier lab's verify recorded in its .lab-result.json. */
export interface Evidence {
  /** The lab folder, e.g. "02-bounded-async". */
  lab: string;
  /** The check's stable id in that lab's results ("reads-at-once-limited"); its wording may change, its id does not. */
  checkId: string;
  /** Finds the cited figure in the check's `observed` text. */
  quote: RegExp;
  /** What the measurement shows, in one sentence. */
  shows: string;
}

export interface DecisionRow {
  kind: WorkKind;
  /** A concrete piece of work from the export service. */
  work: string;
  /** The constraint that decides. */
  constraint: string;
  executor: Executor;
  delivery: Delivery;
  /** The lab that builds it. */
  builtIn: string;
  why: string;
  /** What this choice does not solve. */
  limit: string;
  evidence: Evidence[];
}

/** Lesson 07's answer to "where does the task queue run, and what does it promise?" */
export interface QueueRuntime {
  broker: string;
  worker: string;
  durableState: string;
  delivery: string;
  resultCache: string;
}

export interface DecisionRecord {
  rows: DecisionRow[];
  queue: QueueRuntime;
}

export const DECISION_RECORD: DecisionRecord = {
  rows: [
    {
      kind: 'io-wait',
      work: 'read 20 products over the network within one request',
      constraint: 'waits on awaitable I/O; must finish inside the request; bounded concurrency',
      executor: 'event-loop',
      delivery: 'direct',
      builtIn: 'lab 02 (bounded async)',
      why: 'While a read waits, the event loop serves other work; a limit and a bounded queue keep the waiting bounded.',
      limit: 'Dies with the process; a CPU-heavy callback would stall every other request.',
      evidence: [
        {
          lab: '02-bounded-async',
          checkId: 'reads-at-once-limited',
          quote: /peak reads in flight \d+ \(limit \d+\)/,
          shows: 'the limit holds: reads overlap on one thread, never more than allowed',
        },
        {
          lab: '02-bounded-async',
          checkId: 'batch-completes-in-order',
          quote: /\d+ results.*?\d+ ms/,
          shows: 'overlapping waits finish 20 reads well inside the budget',
        },
        {
          lab: '02-bounded-async',
          checkId: 'queue-bounded',
          quote: /longest queue \d+ \(capacity \d+\)/,
          shows: 'the bounded queue makes the producer wait instead of piling up work',
        },
      ],
    },
    {
      kind: 'blocking-call',
      work: 'upload one export file with a synchronous SDK call, with a timeout',
      constraint: 'blocks the calling thread; needs a timeout; few at a time',
      executor: 'worker-thread',
      delivery: 'direct',
      builtIn: 'lab 05 (thread pool)',
      why: 'A blocking call on the event loop freezes the whole server; a small pool of worker threads absorbs it.',
      limit: 'A timeout stops the waiting, not the running call; the work dies with the process.',
      evidence: [
        {
          lab: '05-thread-pool-io',
          checkId: 'pool-limits-pending-and-running',
          quote: /at most \d+ pending and \d+ running/,
          shows: 'the pool bounds both the blocking calls in progress and those waiting',
        },
        {
          lab: '05-thread-pool-io',
          checkId: 'wait-timeout-read-goes-on',
          quote: /wait timed-out at \d+ ms.*?finished \d+\/\d+ slices at \d+ ms/,
          shows: 'a timeout ends the waiting, not the blocking call: the limit of this choice',
        },
      ],
    },
    {
      kind: 'cpu-bound',
      work: 'score the text of a large batch of products',
      constraint: 'pure CPU; the data splits into chunks; isolation from crashes',
      executor: 'separate-process',
      delivery: 'direct',
      builtIn: 'lab 06 (process pool)',
      why: 'Separate processes use separate cores and a crash stays in its own process; only serialisable data crosses.',
      limit: 'Start-up and copying cost: small inputs can be slower than serial; a lost worker fails its batch.',
      evidence: [
        {
          lab: '06-process-pool',
          checkId: 'timings-reported',
          quote: /serial \d+ ms, pool of \d+ \d+ ms/,
          shows: 'serial and pool timings for the same rows, measured on this machine',
        },
        {
          lab: '06-process-pool',
          checkId: 'timings-reported',
          quote: /starting \d+ worker processes took \d+ ms/,
          shows: 'starting processes has a price, paid once per pool',
        },
        {
          lab: '06-process-pool',
          checkId: 'function-refused-before-send',
          quote: /could not be cloned/,
          shows: 'only serialisable data crosses a process boundary',
        },
        {
          lab: '06-process-pool',
          checkId: 'lost-worker-fails-batch',
          quote: /0 scores returned; job failed/,
          shows: 'a lost worker fails its whole batch',
        },
      ],
    },
    {
      kind: 'durable',
      work: 'finish an export even after the API process stops or restarts',
      constraint: 'durable acceptance; an independent consumer; retryable; state that survives a restart',
      executor: 'separate-process',
      delivery: 'task-queue',
      builtIn: 'labs 08+ (BullMQ worker, MySQL job state)',
      why: 'Only a record outside the API process survives its death; more threads or a bigger pool do not.',
      limit: 'Delivery is at least once: the worker must be idempotent; the queue is not the job database.',
      evidence: [
        {
          lab: '01-state-machine',
          checkId: 'restart-forgets-jobs',
          quote: /GET old id -> 404/,
          shows: 'a job kept in the API process is gone after a restart',
        },
        {
          lab: '03-background-tasks',
          checkId: 'kill-loses-job',
          quote: /GET old id after restart -> 404/,
          shows: 'background work started by the API dies with it, job and all',
        },
      ],
    },
  ],
  queue: {
    broker: 'Redis 7, a dedicated local instance with its own port and password (lab 08)',
    worker: 'a BullMQ worker in its own Node process on Linux (or WSL2), started apart from the API',
    durableState: 'MySQL 8.4 table export_jobs is the source of truth for job state (lab 11)',
    delivery: 'at least once: a message may be delivered twice, so the export must be idempotent (lab 09)',
    resultCache: 'BullMQ keeps results for a limited time; an expired result does not mean the job never existed',
  },
};
