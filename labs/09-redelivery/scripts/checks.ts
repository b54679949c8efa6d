// Lesson 09's learning checks, fault drill and deep dives. Each scenario runs real worker
// processes against the lab's real Redis (prefix tasks-lab09, a fresh queue per check)
// and returns evidence; each judge decides from that evidence alone. `deps` swaps in
// broken parts for test/checks.can-fail.test.ts; building the checks starts nothing.
import { defineCheck, fail, outcome, type Check } from '@tasks-lab/lab-kit';
import type { WorkerSettings } from '@tasks-lab/08-broker-worker';
import type { ArtifactWriter } from '../src/artifact.ts';
import { QUEUE_SETTINGS, settingsProblems, type QueueSettings } from '../src/queue-settings.ts';
import {
  blockedLoopExperiment,
  crashAfterRename,
  duplicateDelivery,
  lateAckWindow,
  poisonJob,
  prefetchExperiment,
  readersDuringRewrites,
  repeatedJobId,
  type Submit,
} from './scenarios.ts';

export interface CheckDeps {
  /** The export worker's entry file (a fixture may render non-deterministic bytes, or acknowledge early). */
  workerScript?: string;
  /** How the artifact is written (a broken variant writes in place). */
  write?: ArtifactWriter;
  /** How a job is added (a broken variant ignores the custom jobId). */
  submit?: Submit;
  /** maxStalledCount of the poison drill's workers. @defaultValue 1 */
  poisonMaxStalledCount?: number;
  /** Lock and stall-check timings of the poison drill's workers (shorter ones only make it quicker). @defaultValue DRILL_TIMINGS */
  poisonTimings?: Partial<Pick<WorkerSettings, 'lockDurationMs' | 'stalledIntervalMs'>>;
  /** Concurrency of the prefetch experiment's first worker (4 imitates a prefetch buffer). @defaultValue 1 */
  firstWorkerConcurrency?: number;
  /** The processor the "fix" half of the blocked-loop experiment uses. @defaultValue 'sandboxed' */
  fixedProcessor?: 'inline' | 'sandboxed';
  /** The per-queue settings table. @defaultValue QUEUE_SETTINGS */
  settings?: readonly QueueSettings[];
}

const short = (digest?: string) => (digest ? digest.slice(0, 12) : 'none');

/** The late-ack window of the run that completed: side effects first, then BullMQ's "completed". */
const describeWindow = (windowMs?: number) =>
  windowMs === undefined
    ? 'no run completed'
    : windowMs >= 0
      ? `the run that completed spent ${windowMs} ms between its side effects and BullMQ's "completed"`
      : `BullMQ's "completed" came ${-windowMs} ms BEFORE the side effects (an early ack)`;

/** A poison job may use 4 workers: with maxStalledCount 1 it must be failed by the third. */
const POISON_WORKERS = 4;
const PREFETCH_JOB_MS = 4000;

export function buildChecks(deps: CheckDeps = {}): Check[] {
  return [
    defineCheck({
      id: 'duplicate-delivery-same-file',
      name: 'two deliveries of one business job under different BullMQ job ids give the same path and sha256',
      timeoutMs: 90_000,
      scenario: (signal) => duplicateDelivery(signal, { workerScript: deps.workerScript }),
      judge: (e) => {
        const [a, b] = e.results;
        if (!a || !b) return fail(`expected two delivery results, got ${e.results.length}`);
        const ok =
          e.bullJobIds[0] !== e.bullJobIds[1] &&
          a.path === b.path &&
          a.sha256 === b.sha256 &&
          e.fileDigest === a.sha256 &&
          e.artifactFiles.length === 1;
        return outcome(
          ok,
          `BullMQ ids differ (${e.bullJobIds.map((id) => id.slice(0, 8)).join(', ')}); paths ${a.path === b.path ? 'equal' : 'DIFFER'}; ` +
            `sha256 ${short(a.sha256)} / ${short(b.sha256)}; file on disk ${short(e.fileDigest)}; files in the folder: ${e.artifactFiles.length}`,
        );
      },
    }),
    defineCheck({
      id: 'no-torn-reads',
      name: 'readers never see a half-written artifact (temp file, fsync, rename) and no temp file is left',
      timeoutMs: 90_000,
      scenario: (signal) => readersDuringRewrites(signal, { write: deps.write }),
      judge: (e) =>
        outcome(
          e.reads > 0 && e.tornReads === 0 && e.leftoverTempFiles.length === 0 && e.finalDigestMatches,
          `${e.rewrites} rewrites, ${e.reads} reads by 2 readers: ${e.tornReads} torn (incomplete) reads, ` +
            `${e.leftoverTempFiles.length} temp files left, final file ${e.finalDigestMatches ? 'complete' : 'WRONG'}`,
        ),
    }),
    defineCheck({
      id: 'same-jobid-runs-once',
      name: 'adding the same custom jobId twice is ignored while the job exists (one execution); after removal it runs again',
      timeoutMs: 90_000,
      scenario: (signal) => repeatedJobId(signal, { submit: deps.submit }),
      judge: (e) => {
        const sameJob = e.secondAddReturned === e.bullJobId;
        return outcome(
          sameJob && e.jobsInQueue === 1 && e.executionsAfterTwoAdds === 1 && e.executionsAfterRemoveAndReAdd === 2,
          `second add returned ${sameJob ? 'the existing job' : `another job (${e.secondAddReturned})`}; ` +
            `jobs in the queue ${e.jobsInQueue}; executions after two adds ${e.executionsAfterTwoAdds}; after remove + add ${e.executionsAfterRemoveAndReAdd}`,
        );
      },
    }),
    defineCheck({
      id: 'crash-after-rename-runs-again',
      name: 'drill: a worker SIGKILLed after the rename, before completing, is replaced and the job runs again in another process with the same file and digest',
      timeoutMs: 120_000,
      scenario: (signal) => crashAfterRename(signal, { workerScript: deps.workerScript }),
      judge: (e) => {
        const pids = e.executions.map((x) => x.pid);
        const ok =
          e.firstWorkerExit === 'SIGKILL' &&
          e.stateAfterCrash === 'active' &&
          e.finalState === 'completed' &&
          e.executions.length === 2 &&
          pids[0] === e.firstWorkerPid &&
          pids[1] === e.secondWorkerPid &&
          e.result?.pid === e.secondWorkerPid &&
          e.digestAfterCrash !== undefined &&
          e.result.sha256 === e.digestAfterCrash &&
          e.finalDigest === e.digestAfterCrash;
        return outcome(
          ok,
          `worker ${e.firstWorkerPid} died (${e.firstWorkerExit}) with the file written (sha256 ${short(e.digestAfterCrash)}) and the job still ${e.stateAfterCrash}; ` +
            `${e.executions.length} executions by pids ${pids.join(', ')}; ${e.finalState} by ${e.result?.pid ?? 'nobody'} after ${e.recoveryMs} ms; ` +
            `final sha256 ${short(e.finalDigest)}; attemptsMade ${e.attemptsMade}, attemptsStarted ${e.attemptsStarted}`,
        );
      },
    }),
    defineCheck({
      id: 'late-ack-window-duplicates',
      name: 'late ack: a worker killed between its side effects and the completion makes them happen twice; a non-idempotent ledger counts 2, the idempotent artifact stays 1 file with 1 digest',
      timeoutMs: 120_000,
      scenario: (signal) => lateAckWindow(signal, { workerScript: deps.workerScript }),
      judge: (e) => {
        const ledgerPids = e.ledger.map((line) => line.pid);
        const ok =
          e.firstWorkerExit === 'SIGKILL' &&
          e.stateAfterCrash === 'active' &&
          e.ledgerAfterCrash.length === 1 &&
          e.digestAfterCrash !== undefined &&
          e.finalState === 'completed' &&
          e.executions.length === 2 &&
          e.ledger.length === 2 &&
          ledgerPids[0] === e.firstWorkerPid &&
          ledgerPids[1] === e.secondWorkerPid &&
          e.artifactFiles.length === 1 &&
          e.finalDigest === e.digestAfterCrash &&
          e.windowMs !== undefined;
        return outcome(
          ok,
          `worker ${e.firstWorkerPid} died (${e.firstWorkerExit}) after ${e.ledgerAfterCrash.length} ledger line(s) and the artifact (sha256 ${short(e.digestAfterCrash)}), ` +
            `the job being ${e.stateAfterCrash} in Redis; ${e.executions.length} execution(s); ledger (not idempotent): ${e.ledger.length} line(s) by pids ${ledgerPids.join(', ') || 'none'}; ` +
            `artifact (idempotent): ${e.artifactFiles.length} file(s), sha256 ${short(e.finalDigest)}; ${e.finalState}; ${describeWindow(e.windowMs)}`,
        );
      },
    }),
    defineCheck({
      id: 'poison-job-fails',
      name: 'a poison job that kills every worker ends failed after maxStalledCount + 1 executions, not in an endless loop',
      timeoutMs: 120_000,
      scenario: (signal) =>
        poisonJob(signal, {
          maxStalledCount: deps.poisonMaxStalledCount ?? 1,
          maxWorkers: POISON_WORKERS,
          timings: deps.poisonTimings,
        }),
      judge: (e) => {
        const expected = e.maxStalledCount + 1;
        return outcome(
          e.finalState === 'failed' &&
            /stalled more than allowable limit/.test(e.failedReason ?? '') &&
            e.executions === expected,
          `maxStalledCount ${e.maxStalledCount}: ${e.workersStarted} workers started, ${e.workersKilled} killed by the job; ` +
            `state ${e.finalState}${e.failedReason ? ` ("${e.failedReason}")` : ''}; executions ${e.executions} (expected ${expected})`,
        );
      },
    }),
    defineCheck({
      id: 'no-prefetch',
      name: 'deep dive: no prefetch — a worker that joins later starts a job while the first worker is still on its first',
      timeoutMs: 90_000,
      scenario: (signal) =>
        prefetchExperiment(signal, { firstWorkerConcurrency: deps.firstWorkerConcurrency, jobMs: PREFETCH_JOB_MS }),
      judge: (e) => {
        const bStart = e.firstJobOfB?.startedAt ?? Infinity;
        const aFirstEnd = e.firstJobOfA.endedAt ?? e.firstJobOfA.startedAt + PREFETCH_JOB_MS;
        const ok = bStart < aFirstEnd;
        const when =
          e.bStartedAfterMs === undefined
            ? `worker B started no job within ${PREFETCH_JOB_MS + 3000} ms, so not before A's first job ended`
            : `worker B started its first job ${e.bStartedAfterMs} ms after joining, ${ok ? `${aFirstEnd - bStart} ms before` : `${bStart - aFirstEnd} ms after`} A's first job ended`;
        return outcome(
          ok,
          `worker A (concurrency ${e.firstWorkerConcurrency}) on 4 jobs of ${PREFETCH_JOB_MS} ms; ${when}; ${e.waitingWhenBStarted} jobs waiting then`,
        );
      },
    }),
    defineCheck({
      id: 'blocked-loop-runs-twice',
      name: 'deep dive: a busy loop longer than lockDuration runs one job twice; a sandboxed processor runs it once',
      timeoutMs: 150_000,
      scenario: async (signal) => {
        // The fix runs first, and is watched only until it runs the job a second time: a fix
        // that runs it twice has failed, whatever the rest of its run or the inline half would
        // show, so neither is waited for. A working fix runs it once; then the inline half
        // runs in full, as before.
        const fixed = await blockedLoopExperiment(signal, {
          processor: deps.fixedProcessor ?? 'sandboxed',
          stopAtExecutions: 2,
        });
        const blocked =
          fixed.executions.length > 1 ? undefined : await blockedLoopExperiment(signal, { processor: 'inline' });
        return { blocked, fixed };
      },
      judge: ({ blocked, fixed }) => {
        const inline = blocked
          ? `${blocked.executions.length} executions in ${blocked.distinctPids} processes, ${blocked.lockErrors} lock errors, ${blocked.finalState}` +
            `${blocked.failedReason ? ` ("${blocked.failedReason}")` : ''}`
          : 'not run, the fix had already run the job twice';
        return outcome(
          blocked !== undefined &&
            blocked.executions.length >= 2 &&
            blocked.distinctPids === 2 &&
            fixed.executions.length === 1 &&
            fixed.finalState === 'completed',
          `inline, 4000 ms busy loop, 1000 ms lock: ${inline}; ${fixed.processor}: ${fixed.executions.length} execution(s), ${fixed.finalState}`,
        );
      },
    }),
    defineCheck({
      id: 'queue-settings-rules',
      name: 'deep dive: the per-queue settings table keeps its rules (pay is never re-run automatically)',
      scenario: () => deps.settings ?? QUEUE_SETTINGS,
      judge: (table) => {
        const problems = settingsProblems(table);
        if (table.length !== 4) problems.push(`the course has 4 queues, the table ${table.length}`);
        // The rules hold work that must not run twice to maxStalledCount 0 and attempts 1: pay is such work.
        if (table.find((s) => s.queue === 'pay')?.repeatable !== false)
          problems.push('pay: money moves, so it must be marked not repeatable');
        const summary = table
          .map(
            (s) =>
              `${s.queue} c${s.concurrency}/lock ${s.lockDurationMs / 1000}s/stalls ${s.maxStalledCount}/attempts ${s.attempts}`,
          )
          .join('; ');
        return outcome(problems.length === 0, problems.length === 0 ? summary : `problems: ${problems.join('; ')}`);
      },
    }),
  ];
}
