// Lesson 09's learning checks, fault drill and deep dives. Each runs real worker
// processes against the lab's real Redis (prefix tasks-lab09, a fresh queue per check).
// `deps` swaps in broken parts for test/checks.can-fail.test.ts.
import { outcome, type Check } from '@tasks-lab/lab-kit';
import { writeArtifactAtomically, type ArtifactWriter } from '../src/artifact.ts';
import { QUEUE_SETTINGS, settingsProblems, type QueueSettings } from '../src/queue-settings.ts';
import {
  blockedLoopExperiment,
  crashAfterRename,
  duplicateDelivery,
  poisonJob,
  prefetchExperiment,
  readersDuringRewrites,
  repeatedJobId,
  type Submit,
} from './scenarios.ts';

export interface CheckDeps {
  /** The export worker's entry file (a fixture may render non-deterministic bytes). */
  workerScript?: string;
  /** How the artifact is written (a fixture may write in place). */
  write?: ArtifactWriter;
  /** How a job is added (a fixture may ignore the custom jobId). */
  submit?: Submit;
  /** maxStalledCount of the poison drill's workers. @defaultValue 1 */
  poisonMaxStalledCount?: number;
  /** Concurrency of the prefetch experiment's first worker (4 imitates a prefetch buffer). @defaultValue 1 */
  firstWorkerConcurrency?: number;
  /** The processor the "fix" half of the blocked-loop experiment uses. @defaultValue 'sandboxed' */
  fixedProcessor?: 'inline' | 'sandboxed';
  settings?: readonly QueueSettings[];
}

const short = (digest?: string) => (digest ? digest.slice(0, 12) : 'none');

export function buildChecks(deps: CheckDeps = {}): Check[] {
  return [
    {
      name: 'two deliveries of one business job under different BullMQ job ids give the same path and sha256',
      timeoutMs: 90_000,
      async run() {
        const e = await duplicateDelivery({ workerScript: deps.workerScript });
        const [a, b] = e.results;
        const ok = e.bullJobIds[0] !== e.bullJobIds[1] && a.path === b.path && a.sha256 === b.sha256 && e.fileDigest === a.sha256 && e.artifactFiles.length === 1;
        return outcome(
          ok,
          `BullMQ ids differ (${e.bullJobIds.map((id) => id.slice(0, 8)).join(', ')}); paths ${a.path === b.path ? 'equal' : 'DIFFER'}; ` +
            `sha256 ${short(a.sha256)} / ${short(b.sha256)}; file on disk ${short(e.fileDigest)}; files in the folder: ${e.artifactFiles.length}`,
        );
      },
    },
    {
      name: 'readers never see a half-written artifact (temp file, fsync, rename) and no temp file is left',
      timeoutMs: 90_000,
      async run() {
        const e = await readersDuringRewrites({ write: deps.write ?? writeArtifactAtomically });
        const ok = e.reads > 0 && e.tornReads === 0 && e.leftoverTempFiles.length === 0 && e.finalDigestMatches;
        return outcome(
          ok,
          `${e.rewrites} rewrites, ${e.reads} reads by 2 readers: ${e.tornReads} torn (incomplete) reads, ` +
            `${e.leftoverTempFiles.length} temp files left, final file ${e.finalDigestMatches ? 'complete' : 'WRONG'}`,
        );
      },
    },
    {
      name: 'adding the same custom jobId twice is ignored while the job exists (one execution); after removal it runs again',
      timeoutMs: 90_000,
      async run() {
        const e = await repeatedJobId({ submit: deps.submit });
        const ok = e.secondAddReturned === e.bullJobId && e.jobsInQueue === 1 && e.executionsAfterTwoAdds === 1 && e.executionsAfterRemoveAndReAdd === 2;
        return outcome(
          ok,
          `second add returned ${e.secondAddReturned === e.bullJobId ? 'the existing job' : `another job (${e.secondAddReturned})`}; ` +
            `jobs in the queue ${e.jobsInQueue}; executions after two adds ${e.executionsAfterTwoAdds}; after remove + add ${e.executionsAfterRemoveAndReAdd}`,
        );
      },
    },
    {
      name: 'drill: a worker SIGKILLed after the rename, before completing, is replaced and the job runs again in another process with the same file and digest',
      timeoutMs: 120_000,
      async run() {
        const e = await crashAfterRename({ workerScript: deps.workerScript });
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
          e.result?.sha256 === e.digestAfterCrash &&
          e.finalDigest === e.digestAfterCrash;
        return outcome(
          ok,
          `worker ${e.firstWorkerPid} died (${e.firstWorkerExit}) with the file written (sha256 ${short(e.digestAfterCrash)}) and the job still ${e.stateAfterCrash}; ` +
            `${e.executions.length} executions by pids ${pids.join(', ')}; ${e.finalState} by ${e.result?.pid ?? 'nobody'} after ${e.recoveryMs} ms; ` +
            `final sha256 ${short(e.finalDigest)}; attemptsMade ${e.attemptsMade}, attemptsStarted ${e.attemptsStarted}`,
        );
      },
    },
    {
      name: 'a poison job that kills every worker ends failed after maxStalledCount + 1 executions, not in an endless loop',
      timeoutMs: 120_000,
      async run() {
        // The window: 4 worker starts. With the default maxStalledCount 1 the job must be failed by the third.
        const e = await poisonJob({ maxStalledCount: deps.poisonMaxStalledCount ?? 1, maxWorkers: 4 });
        const expected = e.maxStalledCount + 1;
        const ok = e.finalState === 'failed' && /stalled more than allowable limit/.test(e.failedReason ?? '') && e.executions === expected;
        return outcome(
          ok,
          `maxStalledCount ${e.maxStalledCount}: ${e.workersStarted} workers started, ${e.workersKilled} killed by the job; ` +
            `state ${e.finalState}${e.failedReason ? ` ("${e.failedReason}")` : ''}; executions ${e.executions} (expected ${expected})`,
        );
      },
    },
    {
      name: 'deep dive: no prefetch — a worker that joins later starts a job while the first worker is still on its first',
      timeoutMs: 90_000,
      async run() {
        const jobMs = 4000;
        const e = await prefetchExperiment({ firstWorkerConcurrency: deps.firstWorkerConcurrency, jobMs });
        const bStart = e.firstJobOfB?.startedAt ?? Infinity;
        const aFirstEnd = e.firstJobOfA.endedAt ?? e.firstJobOfA.startedAt + jobMs;
        const ok = bStart < aFirstEnd;
        const when = e.bStartedAfterMs === undefined
          ? `worker B started no job within ${jobMs + 3000} ms, so not before A's first job ended`
          : `worker B started its first job ${e.bStartedAfterMs} ms after joining, ${ok ? `${aFirstEnd - bStart} ms before` : `${bStart - aFirstEnd} ms after`} A's first job ended`;
        return outcome(ok, `worker A (concurrency ${e.firstWorkerConcurrency}) on 4 jobs of ${jobMs} ms; ${when}; ${e.waitingWhenBStarted} jobs waiting then`);
      },
    },
    {
      name: 'deep dive: a busy loop longer than lockDuration runs one job twice; a sandboxed processor runs it once',
      timeoutMs: 150_000,
      async run() {
        const blocked = await blockedLoopExperiment({ processor: 'inline' });
        const fixed = await blockedLoopExperiment({ processor: deps.fixedProcessor ?? 'sandboxed' });
        const ok = blocked.executions.length >= 2 && blocked.distinctPids === 2 && fixed.executions.length === 1 && fixed.finalState === 'completed';
        return outcome(
          ok,
          `inline, 4000 ms busy loop, 1000 ms lock: ${blocked.executions.length} executions in ${blocked.distinctPids} processes, ${blocked.lockErrors} lock errors, ${blocked.finalState}` +
            `${blocked.failedReason ? ` ("${blocked.failedReason}")` : ''}; ${fixed.processor}: ${fixed.executions.length} execution(s), ${fixed.finalState}`,
        );
      },
    },
    {
      name: 'deep dive: the per-queue settings table keeps its rules (pay is never re-run automatically)',
      run() {
        const table = deps.settings ?? QUEUE_SETTINGS;
        const problems = settingsProblems(table);
        const pay = table.find((s) => s.queue === 'pay');
        const summary = table.map((s) => `${s.queue} c${s.concurrency}/lock ${s.lockDurationMs / 1000}s/stalls ${s.maxStalledCount}/attempts ${s.attempts}`).join('; ');
        return outcome(
          problems.length === 0 && table.length === 4 && pay?.maxStalledCount === 0 && pay.attempts === 1,
          problems.length === 0 ? summary : `problems: ${problems.join('; ')}`,
        );
      },
    },
  ];
}
