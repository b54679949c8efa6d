// Lesson 02's three experiments, each a real batch (real timers, real p-limit, the
// real queue and task group) for a lesson-01 job in a MemoryJobStore:
//   normal   20 products, the course's limits and budget
//   timeout  the same batch with a 150 ms budget
//   failing  the same batch where product 3 fails
// A scenario only gathers evidence; scripts/checks.ts judges it. Several checks judge
// one experiment, so each runs once per buildChecks() (sharedScenario).
import { errorMessage, sharedScenario, sleep } from '@tasks-lab/lab-kit';
import { MemoryJobStore, type ExportJob } from '@tasks-lab/01-state-machine';
import {
  BATCH_DEFAULTS,
  BatchRecorder,
  failingOn,
  runExportBatch,
  simulatedRead,
  type CollectOptions,
  type ConsumerCloseReason,
  type ExportBatchOptions,
  type ReadProduct,
  type RunExportBatch,
} from '../src/index.ts';

export interface BatchDeps {
  /** Batch settings applied to every run (a broken variant raises a limit or swaps the consumer). */
  batch?: Pick<CollectOptions, 'consumers' | 'queueCapacity' | 'readConcurrency' | 'consumer'>;
  /** Builds the product read (a broken variant ignores the abort signal). */
  makeRead?: (readDelayMs: number) => ReadProduct;
  /** Runs a job's batch (a broken variant reports partial results). */
  runBatch?: RunExportBatch;
}

export const PRODUCT_IDS: readonly number[] = Array.from({ length: 20 }, (_, index) => index + 1);
export const DRILL_BUDGET_MS = 150;
export const FAILING_PRODUCT = 3;

/** What one batch run left behind, whether it resolved or rejected. */
export interface BatchEvidence {
  /** The ids of the products the batch returned; undefined when it rejected. */
  returnedIds?: number[];
  /** The batch's error message; undefined when it resolved. */
  error?: string;
  /** The job record after the batch settled. */
  job: ExportJob;
  elapsedMs: number;
  peakInFlight: number;
  longestQueue: number;
  producerWaits: number;
  /** How reads had ended when the batch settled. */
  reads: { started: number; finished: number; aborted: number; failed: number };
  /** The order reads finished in: the order check means something only when it differs from the ids'. */
  finishOrder: number[];
  /** Consumers closed by the time the batch settled, in the order they closed. */
  closedAtSettle: { consumer: number; reason: ConsumerCloseReason }[];
  /** Reads still running when the batch settled. */
  inFlightAtSettle: number;
  /** Reads that finished after the batch had settled (a read that ignored the abort). */
  finishedAfterSettle: number;
}

/**
 * Reads whose time depends on the product: odd ids take 1.5x the delay, even ids 0.5x,
 * so reads finish out of id order (2 before 1) and "results in id order" is really tested.
 * The average is the course's delay, so the batch takes as long as with even reads.
 */
function unevenReads(makeRead: (readDelayMs: number) => ReadProduct, readDelayMs: number): ReadProduct {
  const slow = makeRead(Math.round(readDelayMs * 1.5));
  const fast = makeRead(Math.round(readDelayMs * 0.5));
  return (productId, signal) => (productId % 2 === 1 ? slow : fast)(productId, signal);
}

/** `read`, also stopped by the check's signal: a check that times out leaves no timers running. */
function stoppedBy(check: AbortSignal, read: ReadProduct): ReadProduct {
  return (productId, signal) => read(productId, AbortSignal.any([signal, check]));
}

export function batchExperiments(deps: BatchDeps = {}) {
  const makeRead = deps.makeRead ?? ((readDelayMs: number) => simulatedRead({ readDelayMs }));
  const runBatch = deps.runBatch ?? runExportBatch;
  const { readDelayMs } = BATCH_DEFAULTS;

  async function runJob(
    check: AbortSignal,
    read: ReadProduct,
    options: ExportBatchOptions = {},
  ): Promise<BatchEvidence> {
    const store = new MemoryJobStore();
    const { id } = await store.create(PRODUCT_IDS);
    const recorder = new BatchRecorder();
    const started = Date.now();
    const batchOptions = { ...deps.batch, ...options, read: stoppedBy(check, read), onEvent: recorder.record };
    const settled = await runBatch(store, id, batchOptions).then(
      (products) => ({ returnedIds: products.map((product) => product.id) }),
      (err: unknown) => ({ error: errorMessage(err) }),
    );
    const elapsedMs = Date.now() - started;
    const atSettle = {
      events: recorder.events.length,
      reads: {
        started: recorder.count('read-started'),
        finished: recorder.count('read-finished'),
        aborted: recorder.count('read-aborted'),
        failed: recorder.count('read-failed'),
      },
      closed: recorder.closedConsumers,
      inFlight: recorder.inFlight,
    };
    const job = await store.require(id);
    // Long enough for any read that ignored the abort to finish: it then shows up here.
    await sleep(readDelayMs * 3, check);
    return {
      ...settled,
      job,
      elapsedMs,
      peakInFlight: recorder.peakInFlight,
      longestQueue: recorder.longestQueue,
      producerWaits: recorder.producerWaits,
      reads: atSettle.reads,
      finishOrder: recorder.events.flatMap((event) => (event.type === 'read-finished' ? [event.productId] : [])),
      closedAtSettle: atSettle.closed,
      inFlightAtSettle: atSettle.inFlight,
      finishedAfterSettle: recorder.count('read-finished', atSettle.events),
    };
  }

  return {
    normal: sharedScenario((signal) => runJob(signal, unevenReads(makeRead, readDelayMs))),
    timeout: sharedScenario((signal) => runJob(signal, makeRead(readDelayMs), { budgetMs: DRILL_BUDGET_MS })),
    failing: sharedScenario((signal) => runJob(signal, failingOn(FAILING_PRODUCT, makeRead(readDelayMs)))),
  };
}
