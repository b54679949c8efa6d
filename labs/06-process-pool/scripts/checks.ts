// Lesson 06's learning checks and fault drill. The experiments (scenarios.ts) run real
// worker processes and return evidence; each check here only judges it. Three
// experiments feed the six checks, each run once however many checks judge it:
//   comparison:   serial vs pool on the same rows, two batches on one pool;
//   not sendable: an export job whose third row carries a function;
//   crash drill:  a worker crashes (LAB_FAULTS) holding a row mid-batch; the next batch runs on the same pool.
import { defineCheck, outcome, sharedScenario, type Check } from '@tasks-lab/lab-kit';
import { findScoreDifference } from '../src/compare.ts';
import {
  list,
  runComparison,
  runCrashDrill,
  runNotSendable,
  type Comparison,
  type CrashDrill,
  type NotSendableRun,
  type ScenarioDeps,
} from './scenarios.ts';

export type CheckDeps = ScenarioDeps;

const sameSet = (a: readonly number[], b: readonly number[]) => list(a) === list(b);

export function buildChecks(deps: CheckDeps = {}): Check[] {
  const comparison = sharedScenario((signal) => runComparison(deps, signal));
  const drill = sharedScenario((signal) => runCrashDrill(deps, signal));
  return [
    defineCheck({
      id: 'serial-equals-pool',
      name: 'serial and pool scores are equal (same scores, same order)',
      scenario: comparison,
      judge: judgeEqualScores,
    }),
    defineCheck({
      id: 'timings-reported',
      name: 'both timings are reported; the pool is not assumed to be faster',
      scenario: comparison,
      judge: judgeTimings,
    }),
    defineCheck({
      id: 'pool-reused',
      name: 'the pool is created once and reused: two batches, same worker pids',
      scenario: comparison,
      judge: judgeReuse,
    }),
    defineCheck({
      id: 'function-refused-before-send',
      name: 'a function in a row fails visibly before anything is sent',
      scenario: (signal) => runNotSendable(deps, signal),
      judge: judgeNotSendable,
    }),
    defineCheck({
      id: 'lost-worker-fails-batch',
      name: 'a worker killed mid-batch fails the whole batch: no scores, job failed, clear error',
      scenario: drill,
      judge: judgeLostWorker,
    }),
    defineCheck({
      id: 'lost-worker-replaced',
      name: 'after a lost worker the pool replaces it and the next batch succeeds',
      scenario: drill,
      judge: judgeRecovery,
    }),
  ];
}

function judgeEqualScores(c: Comparison) {
  const difference = findScoreDifference(c.serial, c.first.scores);
  const sample = c.serial[0] ? `product ${c.serial[0].productId} -> ${c.serial[0].score}` : 'none';
  return outcome(
    difference === undefined,
    difference
      ? `serial and pool differ: ${difference}`
      : `${c.rows} rows, ${c.first.scores.length} equal scores in the same order (first: ${sample})`,
  );
}

/** A timing is only worth reading once the results agree, at both sizes; which one wins is never judged. */
function judgeTimings(c: Comparison) {
  const measured = [c.serialMs, c.first.ms, c.startupMs, c.small.serialMs, c.small.poolMs].every(Number.isFinite);
  const agree = findScoreDifference(c.serial, c.first.scores) === undefined && c.small.difference === undefined;
  const verdict = c.first.ms < c.serialMs ? 'the pool was faster this time' : 'the pool was not faster this time';
  return outcome(
    measured && agree && c.startupMs > 0,
    `${c.rows} rows x ${c.rounds} rounds: serial ${c.serialMs} ms, pool of ${c.poolSize} ${c.first.ms} ms (${verdict}); ` +
      `x ${c.small.rounds} rounds: serial ${c.small.serialMs} ms, pool ${c.small.poolMs} ms; ` +
      `starting ${c.poolSize} worker processes took ${c.startupMs} ms, once` +
      (agree ? '' : '; the scores did not agree, so these timings mean nothing'),
  );
}

function judgeReuse(c: Comparison) {
  const ok =
    c.poolPids.length === c.poolSize &&
    !c.poolPids.includes(c.parentPid) &&
    sameSet(c.first.workerPids, c.poolPids) &&
    sameSet(c.second.workerPids, c.poolPids) &&
    sameSet(c.poolPidsAfter, c.poolPids);
  return outcome(
    ok,
    `pool started pids ${list(c.poolPids)} (parent ${c.parentPid}); batch 1 ran on ${list(c.first.workerPids)}, ` +
      `batch 2 on ${list(c.second.workerPids)}; pool pids afterwards ${list(c.poolPidsAfter)}`,
  );
}

function judgeNotSendable(r: NotSendableRun) {
  const { error, job } = r;
  const ok =
    error?.code === 'not-sendable' &&
    /^row 2 cannot be sent to a worker process: .*could not be cloned/.test(error.message) &&
    job.state === 'failed' &&
    job.error === error.message &&
    job.result === null &&
    r.rowsScored === 0;
  return outcome(
    ok,
    (error ? `batch rejected: "${error.message}"` : `no error: the batch succeeded with ${r.rowsScored} rows`) +
      `; job ${job.state}, result ${JSON.stringify(job.result)}, ${r.rowsScored} rows scored; ` +
      `with Node's default JSON channel instead, the worker received keys [${r.jsonChannelKeys.join(', ')}] and no error: the function silently vanished`,
  );
}

function judgeLostWorker(d: CrashDrill) {
  const expected = `worker process ${d.faultyPid} exited (SIGKILL) during batch`;
  const ok =
    d.returned === undefined &&
    d.error?.code === 'worker-lost' &&
    d.error.pid === d.faultyPid &&
    d.error.signal === 'SIGKILL' &&
    d.error.message === expected &&
    d.rowsScored < d.rows &&
    d.job.state === 'failed' &&
    d.job.error === expected &&
    d.job.result === null;
  const got = d.returned
    ? `the batch resolved with ${d.returned.scores} of ${d.rows} scores`
    : `the batch rejected: "${d.error?.message}", 0 scores returned`;
  return outcome(
    ok,
    `worker ${d.faultyPid} (LAB_FAULTS=${d.faults}) killed itself while scoring a row, with ${d.rowsScored} of ${d.rows} rows back; ` +
      `${got}; job ${d.job.state}, error ${JSON.stringify(d.job.error)}, result ${JSON.stringify(d.job.result)}`,
  );
}

function judgeRecovery(d: CrashDrill) {
  const survivors = d.pidsBefore.filter((pid) => pid !== d.faultyPid);
  const replacements = d.pidsAfter.filter((pid) => !d.pidsBefore.includes(pid));
  const ok =
    d.pidsAfter.length === d.poolSize &&
    !d.pidsAfter.includes(d.faultyPid) &&
    !d.faultyStillAlive &&
    survivors.every((pid) => d.pidsAfter.includes(pid)) &&
    replacements.length === 1 &&
    d.nextBatch !== undefined &&
    d.nextBatch.difference === undefined;
  return outcome(
    ok,
    `pids before ${list(d.pidsBefore)}, after ${list(d.pidsAfter)} (crashed ${d.faultyPid} ${d.faultyStillAlive ? 'still alive' : 'gone'}, ` +
      `replacement ${list(replacements) || 'none'}); ` +
      (d.nextBatch
        ? `next batch: ${d.nextBatch.scores} scores from ${list(d.nextBatch.workerPids)}, ${d.nextBatch.difference ?? 'equal to serial'}`
        : `next batch failed: ${d.nextError?.message}`),
  );
}
