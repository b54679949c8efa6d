// Lesson 02's learning checks and fault drill. The experiments (scripts/scenarios.ts)
// run real batches and gather evidence; each check below judges that evidence.
// `deps` swaps parts for test/checks.can-fail.test.ts, which breaks a real part (a
// limit raised, the queue unbounded, a read that ignores the abort...) and expects the
// check that guards against it to fail. Building the checks starts nothing.
import { defineCheck, outcome, type Check } from '@tasks-lab/lab-kit';
import { BATCH_DEFAULTS } from '../src/index.ts';
import {
  batchExperiments,
  DRILL_BUDGET_MS,
  FAILING_PRODUCT,
  PRODUCT_IDS,
  type BatchDeps,
  type BatchEvidence,
} from './scenarios.ts';

export type CheckDeps = BatchDeps;

const {
  consumers: CONSUMERS,
  queueCapacity: CAPACITY,
  readConcurrency: READS_AT_ONCE,
  budgetMs: BUDGET_MS,
} = BATCH_DEFAULTS;

const describeClosed = (e: BatchEvidence) =>
  e.closedAtSettle.map(({ consumer, reason }) => `${consumer}:${reason}`).join(', ') || 'none';

const describeReads = ({ reads }: BatchEvidence) =>
  `${reads.started} started, ${reads.finished} finished, ${reads.aborted} aborted, ${reads.failed} failed`;

const describeSettled = (e: BatchEvidence) =>
  e.error === undefined ? `resolved with ${e.returnedIds?.length} products` : `rejected: "${e.error}"`;

/** The two limits the lesson measures on every path: reads at once and ids waiting. */
const withinLimits = (e: BatchEvidence) =>
  e.reads.started >= 1 && e.peakInFlight <= READS_AT_ONCE && e.longestQueue <= CAPACITY;

const describeLimits = (e: BatchEvidence) =>
  `peak reads in flight ${e.peakInFlight} (limit ${READS_AT_ONCE}), longest queue ${e.longestQueue} (capacity ${CAPACITY}) ` +
  `over ${e.reads.started} reads started`;

const sameList = (a: readonly number[], b: readonly number[]) => a.join(',') === b.join(',');

export function buildChecks(deps: CheckDeps = {}): Check[] {
  const run = batchExperiments(deps);
  return [
    defineCheck({
      id: 'batch-completes-in-order',
      name: `20 products give 20 results in id order within the ${BUDGET_MS} ms budget`,
      scenario: run.normal,
      judge: (e) => {
        const ids = e.returnedIds ?? [];
        const inOrder = sameList(ids, PRODUCT_IDS);
        // Odd ids read slower, so a batch that kept results in arrival order would be caught.
        const finishedOutOfOrder = !sameList(e.finishOrder, PRODUCT_IDS);
        const drained =
          e.closedAtSettle.length === CONSUMERS && e.closedAtSettle.every(({ reason }) => reason === 'drained');
        const ok =
          e.error === undefined &&
          inOrder &&
          finishedOutOfOrder &&
          e.elapsedMs < BUDGET_MS &&
          e.job.state === 'succeeded' &&
          e.job.result?.rows === PRODUCT_IDS.length &&
          drained;
        const order = inOrder ? `${ids[0]}..${ids.at(-1)} in order` : `out of order: ${ids.join(',')}`;
        return outcome(
          ok,
          `${e.error === undefined ? `${ids.length} results, ids ${order}` : `the batch ${describeSettled(e)}`} ` +
            `(reads finished ${finishedOutOfOrder ? 'out of' : 'in'} id order), ${e.elapsedMs} ms, ` +
            `job ${e.job.state} ${JSON.stringify(e.job.result)}, ${e.closedAtSettle.length} consumers closed (${describeClosed(e)})`,
        );
      },
    }),
    defineCheck({
      id: 'reads-at-once-limited',
      name: `At most ${READS_AT_ONCE} product reads run at once, and ${READS_AT_ONCE} really do`,
      scenario: run.normal,
      judge: (e) =>
        outcome(
          e.peakInFlight === READS_AT_ONCE && e.error === undefined,
          `peak reads in flight ${e.peakInFlight} (limit ${READS_AT_ONCE}) over ${e.reads.started} reads`,
        ),
    }),
    defineCheck({
      id: 'queue-bounded',
      name: `The queue never holds more than ${CAPACITY} product ids; the producer waits instead`,
      scenario: run.normal,
      judge: (e) =>
        outcome(
          e.longestQueue <= CAPACITY && e.producerWaits > 0 && e.error === undefined,
          `longest queue ${e.longestQueue} (capacity ${CAPACITY}); the producer waited for space ${e.producerWaits} times`,
        ),
    }),
    defineCheck({
      id: 'timeout-fails-job',
      name: `A ${DRILL_BUDGET_MS} ms budget rejects the batch with "batch timed out" and fails the job`,
      scenario: run.timeout,
      judge: (e) => {
        const expected = `batch timed out after ${DRILL_BUDGET_MS} ms`;
        return outcome(
          e.error === expected && e.job.state === 'failed' && e.job.error === expected,
          `batch ${describeSettled(e)} after ${e.elapsedMs} ms; job ${e.job.state}, error "${e.job.error}"`,
        );
      },
    }),
    defineCheck({
      id: 'timeout-closes-consumers',
      name: `After the timeout all ${CONSUMERS} consumers have closed and no read is left running`,
      scenario: run.timeout,
      judge: (e) =>
        outcome(
          e.closedAtSettle.length === CONSUMERS && e.inFlightAtSettle === 0 && e.finishedAfterSettle === 0,
          `${e.closedAtSettle.length} of ${CONSUMERS} consumers closed when the batch settled (${describeClosed(e)}); ` +
            `reads ${describeReads(e)}; ${e.inFlightAtSettle} still running, ${e.finishedAfterSettle} finished afterwards`,
        ),
    }),
    defineCheck({
      id: 'timeout-no-partial-result',
      name: 'A timed-out batch reports no partial result',
      scenario: run.timeout,
      judge: (e) =>
        outcome(
          e.returnedIds === undefined && e.job.result === null && e.job.state !== 'succeeded',
          `${e.reads.finished} products were read before the deadline; the batch returned ` +
            `${e.returnedIds ? `${e.returnedIds.length} products` : 'nothing'}; job ${e.job.state}, result ${JSON.stringify(e.job.result)}`,
        ),
    }),
    defineCheck({
      id: 'timeout-keeps-limits',
      name: `On the timeout path too, at most ${READS_AT_ONCE} reads ran at once and at most ${CAPACITY} ids waited`,
      scenario: run.timeout,
      judge: (e) => outcome(withinLimits(e), describeLimits(e)),
    }),
    defineCheck({
      id: 'failing-product-fails-job',
      name: `One failing product (${FAILING_PRODUCT}) fails the whole batch and the job, with no result`,
      scenario: run.failing,
      judge: (e) => {
        const ok =
          e.error?.startsWith(`batch failed: product ${FAILING_PRODUCT} `) === true &&
          e.returnedIds === undefined &&
          e.job.state === 'failed' &&
          e.job.result === null &&
          e.job.error === e.error;
        return outcome(ok, `batch ${describeSettled(e)}; job ${e.job.state}, result ${JSON.stringify(e.job.result)}`);
      },
    }),
    defineCheck({
      id: 'failure-aborts-reads',
      name: `After product ${FAILING_PRODUCT} fails, reads in flight are aborted and the rest never start`,
      scenario: run.failing,
      judge: (e) =>
        outcome(
          e.reads.aborted >= 1 &&
            e.reads.started < PRODUCT_IDS.length &&
            e.inFlightAtSettle === 0 &&
            e.finishedAfterSettle === 0,
          `reads ${describeReads(e)} of ${PRODUCT_IDS.length}; ` +
            `${e.inFlightAtSettle} still running when the batch settled, ${e.finishedAfterSettle} finished afterwards`,
        ),
    }),
    defineCheck({
      id: 'failure-closes-consumers',
      name: `All ${CONSUMERS} consumers close when a product fails`,
      scenario: run.failing,
      judge: (e) => {
        const failed = e.closedAtSettle.filter(({ reason }) => reason === 'failed').length;
        return outcome(
          e.closedAtSettle.length === CONSUMERS && failed === 1,
          `${e.closedAtSettle.length} of ${CONSUMERS} consumers closed when the batch settled (${describeClosed(e)})`,
        );
      },
    }),
    defineCheck({
      id: 'failure-keeps-limits',
      name: `When product ${FAILING_PRODUCT} fails too, at most ${READS_AT_ONCE} reads ran at once and at most ${CAPACITY} ids waited`,
      scenario: run.failing,
      judge: (e) => outcome(withinLimits(e), describeLimits(e)),
    }),
  ];
}
