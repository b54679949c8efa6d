// Lesson 02's learning checks and fault drill. Each check runs a real batch (real
// timers, real p-limit, the real queue) and reports what it measured.
// `deps` swaps parts for test/checks.can-fail.test.ts, which feeds broken variants
// and expects these checks to fail.
import { fail, outcome, sleep, type Check } from '@tasks-lab/lab-kit';
import {
  BATCH_DEFAULTS,
  BatchRecorder,
  failingOn,
  JobStore,
  runExportBatch,
  simulatedRead,
  type CollectOptions,
  type ExportBatchOptions,
  type ExportJob,
  type Product,
  type ReadProduct,
  type RunExportBatch,
} from '../src/index.ts';

export interface CheckDeps {
  /** Batch settings applied to every run (a broken variant raises a limit or swaps the consumer). */
  batch?: Pick<CollectOptions, 'consumers' | 'queueCapacity' | 'readConcurrency' | 'consumer'>;
  /** Builds the product read (a broken variant ignores the abort signal). */
  makeRead?: (readDelayMs: number) => ReadProduct;
  /** Runs a job's batch (a broken variant reports partial results). */
  runBatch?: RunExportBatch;
}

const PRODUCT_IDS = Array.from({ length: 20 }, (_, index) => index + 1);
const DRILL_BUDGET_MS = 150;
const FAILING_PRODUCT = 3;
const { consumers: CONSUMERS, queueCapacity: CAPACITY, readConcurrency: READS_AT_ONCE } = BATCH_DEFAULTS;

/** What one batch run left behind, whether it resolved or rejected. */
interface BatchRun {
  products?: Product[];
  error?: Error;
  job: ExportJob;
  recorder: BatchRecorder;
  elapsedMs: number;
  /** How many events had been recorded when the batch settled. */
  eventsAtSettle: number;
  /** Consumers closed by the time the batch settled. */
  closedAtSettle: number;
  /** Reads still running when the batch settled. */
  inFlightAtSettle: number;
}

export function buildChecks(deps: CheckDeps = {}): Check[] {
  const makeRead = deps.makeRead ?? ((readDelayMs: number) => simulatedRead({ readDelayMs }));
  const runBatch = deps.runBatch ?? runExportBatch;

  async function runJob(options: ExportBatchOptions = {}): Promise<BatchRun> {
    const store = new JobStore();
    const job = store.create(PRODUCT_IDS);
    const recorder = new BatchRecorder();
    const started = Date.now();
    const settle = (result: { products?: Product[]; error?: Error }): BatchRun => ({
      ...result,
      job: store.require(job.id),
      recorder,
      elapsedMs: Date.now() - started,
      eventsAtSettle: recorder.events.length,
      closedAtSettle: recorder.closedConsumers.length,
      inFlightAtSettle: recorder.inFlight,
    });
    const read = options.read ?? makeRead(BATCH_DEFAULTS.readDelayMs);
    try {
      const products = await runBatch(store, job.id, { ...deps.batch, ...options, read, onEvent: recorder.record });
      return settle({ products });
    } catch (err) {
      return settle({ error: err instanceof Error ? err : new Error(String(err)) });
    }
  }

  const normalRun = () => runJob();
  const timeoutRun = () => runJob({ budgetMs: DRILL_BUDGET_MS });
  const failingRun = () => runJob({ read: failingOn(FAILING_PRODUCT, makeRead(BATCH_DEFAULTS.readDelayMs)) });

  /** Waits long enough for any read that ignored the abort to finish, then counts reads that ended late. */
  async function readsFinishedAfterSettle(run: BatchRun): Promise<number> {
    await sleep(BATCH_DEFAULTS.readDelayMs * 3);
    return run.recorder.count('read-finished', run.eventsAtSettle);
  }

  const describeClosed = (run: BatchRun) =>
    run.recorder.closedConsumers.map(({ consumer, reason }) => `${consumer}:${reason}`).join(', ') || 'none';

  return [
    {
      name: `20 products give 20 results in id order within the ${BATCH_DEFAULTS.budgetMs} ms budget`,
      run: async () => {
        const run = await normalRun();
        if (run.error) return fail(`the batch rejected: ${run.error.message}`);
        const ids = (run.products ?? []).map((product) => product.id);
        const inOrder = ids.join(',') === PRODUCT_IDS.join(',');
        const closed = run.recorder.closedConsumers;
        const ok =
          inOrder &&
          run.elapsedMs < BATCH_DEFAULTS.budgetMs &&
          run.job.state === 'succeeded' &&
          run.job.result?.rows === PRODUCT_IDS.length &&
          closed.length === CONSUMERS &&
          closed.every(({ reason }) => reason === 'drained');
        return outcome(
          ok,
          `${ids.length} results, ids ${inOrder ? `${ids[0]}..${ids.at(-1)} in order` : `out of order: ${ids.join(',')}`}, ` +
            `${run.elapsedMs} ms, job ${run.job.state} ${JSON.stringify(run.job.result)}, ` +
            `${closed.length} consumers closed (${describeClosed(run)})`,
        );
      },
    },
    {
      name: `At most ${READS_AT_ONCE} product reads run at once, and ${READS_AT_ONCE} really do`,
      run: async () => {
        const run = await normalRun();
        const peak = run.recorder.peakInFlight;
        return outcome(
          peak === READS_AT_ONCE && !run.error,
          `peak reads in flight ${peak} (limit ${READS_AT_ONCE}) over ${run.recorder.count('read-started')} reads`,
        );
      },
    },
    {
      name: `The queue never holds more than ${CAPACITY} product ids; the producer waits instead`,
      run: async () => {
        const run = await normalRun();
        const longest = run.recorder.longestQueue;
        return outcome(
          longest <= CAPACITY && run.recorder.producerWaits > 0 && !run.error,
          `longest queue ${longest} (capacity ${CAPACITY}); the producer waited for space ${run.recorder.producerWaits} times`,
        );
      },
    },
    {
      name: `A ${DRILL_BUDGET_MS} ms budget rejects the batch with "batch timed out" and fails the job`,
      run: async () => {
        const run = await timeoutRun();
        const expected = `batch timed out after ${DRILL_BUDGET_MS} ms`;
        return outcome(
          run.error?.message === expected && run.job.state === 'failed' && run.job.error === expected,
          `batch ${run.error ? `rejected: "${run.error.message}"` : 'resolved'} after ${run.elapsedMs} ms; ` +
            `job ${run.job.state}, error "${run.job.error}"`,
        );
      },
    },
    {
      name: `After the timeout all ${CONSUMERS} consumers have closed and no read is left running`,
      run: async () => {
        const run = await timeoutRun();
        const late = await readsFinishedAfterSettle(run);
        return outcome(
          run.closedAtSettle === CONSUMERS && run.inFlightAtSettle === 0 && late === 0,
          `${run.closedAtSettle} of ${CONSUMERS} consumers closed when the batch settled (${describeClosed(run)}); ` +
            `reads ${run.recorder.describeReads()}; ${run.inFlightAtSettle} still running, ${late} finished afterwards`,
        );
      },
    },
    {
      name: 'A timed-out batch reports no partial result',
      run: async () => {
        const run = await timeoutRun();
        const readBeforeDeadline = run.recorder.count('read-finished');
        return outcome(
          run.products === undefined && run.job.result === null && run.job.state !== 'succeeded',
          `${readBeforeDeadline} products were read before the deadline; the batch returned ` +
            `${run.products ? `${run.products.length} products` : 'nothing'}; job ${run.job.state}, result ${JSON.stringify(run.job.result)}`,
        );
      },
    },
    {
      name: `One failing product (${FAILING_PRODUCT}) fails the whole batch and the job, with no result`,
      run: async () => {
        const run = await failingRun();
        const ok =
          run.error?.message.startsWith(`batch failed: product ${FAILING_PRODUCT} `) === true &&
          run.products === undefined &&
          run.job.state === 'failed' &&
          run.job.result === null &&
          run.job.error === run.error.message;
        return outcome(
          ok,
          `batch ${run.error ? `rejected: "${run.error.message}"` : `resolved with ${run.products?.length} products`}; ` +
            `job ${run.job.state}, result ${JSON.stringify(run.job.result)}`,
        );
      },
    },
    {
      name: `After product ${FAILING_PRODUCT} fails, reads in flight are aborted and the rest never start`,
      run: async () => {
        const run = await failingRun();
        const late = await readsFinishedAfterSettle(run);
        const started = run.recorder.count('read-started');
        const aborted = run.recorder.count('read-aborted');
        return outcome(
          aborted >= 1 && started < PRODUCT_IDS.length && run.inFlightAtSettle === 0 && late === 0,
          `reads ${run.recorder.describeReads()} of ${PRODUCT_IDS.length}; ` +
            `${run.inFlightAtSettle} still running when the batch settled, ${late} finished afterwards`,
        );
      },
    },
    {
      name: `All ${CONSUMERS} consumers close when a product fails`,
      run: async () => {
        const run = await failingRun();
        const reasons = run.recorder.closedConsumers.map(({ reason }) => reason);
        return outcome(
          run.closedAtSettle === CONSUMERS && reasons.filter((reason) => reason === 'failed').length === 1,
          `${run.closedAtSettle} of ${CONSUMERS} consumers closed when the batch settled (${describeClosed(run)})`,
        );
      },
    },
  ];
}
