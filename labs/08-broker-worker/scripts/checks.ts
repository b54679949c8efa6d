// Lesson 08's learning checks and fault drill. The experiments are in scenarios.ts;
// here each check judges the evidence one of them gathered. Several checks judge the
// same experiment (one broker conversation, one round trip through a worker process),
// which then runs once. buildChecks(deps) lets test/checks.can-fail.test.ts swap in
// broken parts: a producer that skips the contract or the business id or the
// retention, a worker fixture that registers another name or writes the wrong file,
// a Redis that evicts or has no password.
import { isDeepStrictEqual } from 'node:util';
import { defineCheck, outcome, sharedScenario, type Check, type CheckOutcome } from '@tasks-lab/lab-kit';
import {
  brokerConnection,
  brokerPort,
  EXPORT_JOB_NAME,
  EXPORTS_QUEUE,
  FAILED_RESULT_TTL_SECONDS,
  RESULT_TTL_SECONDS,
} from '../src/broker.ts';
import { enqueueExport } from '../src/producer.ts';
import {
  askBroker,
  dashboard,
  lazyRemoval,
  printedOutputs,
  refusedBeforeRedis,
  roundTrip,
  stoppedWorker,
  UNKNOWN_JOB_NAME,
  type Answer,
  type BrokerEvidence,
  type DashboardEvidence,
  type LabParts,
  type LazyRemovalEvidence,
  type PrintedEvidence,
  type RefusalEvidence,
  type RoundTripEvidence,
  type StoppedWorkerEvidence,
} from './scenarios.ts';

export type { Enqueue } from './scenarios.ts';

export interface CheckDeps extends Partial<LabParts> {
  /** How long the drill's CLI waits, in seconds. @defaultValue 2 */
  drillWaitSeconds?: number;
}

/** The lab's real parts, with the broken ones a test passes in. Builds nothing, starts nothing. */
export function labParts(deps: CheckDeps = {}): LabParts {
  return {
    queueName: deps.queueName ?? EXPORTS_QUEUE,
    connection: deps.connection ?? brokerConnection(),
    enqueue: deps.enqueue ?? enqueueExport,
    workerScript: deps.workerScript ?? 'src/worker.ts',
    serverScript: deps.serverScript ?? 'src/server.ts',
  };
}

export function buildChecks(deps: CheckDeps = {}): Check[] {
  const parts = labParts(deps);
  const broker = sharedScenario((signal) => askBroker(parts, signal));
  const trip = sharedScenario((signal) => roundTrip(parts, signal));
  const drillWaitSeconds = deps.drillWaitSeconds ?? 2;
  return [
    defineCheck({
      id: 'broker-answers-with-password',
      name: `PING answers PONG with the generated password (the lab Redis on port ${parts.connection.port ?? brokerPort()})`,
      scenario: broker,
      judge: judgePing,
    }),
    defineCheck({
      id: 'broker-refuses-anonymous-client',
      name: 'a client without the password is refused with NOAUTH',
      scenario: broker,
      judge: judgeNoAuth,
    }),
    defineCheck({
      id: 'broker-persists-never-evicts',
      name: 'the broker persists and never evicts: appendonly yes, maxmemory-policy noeviction',
      scenario: broker,
      judge: judgePersistence,
    }),
    defineCheck({
      id: 'worker-registers-export-job',
      name: 'a worker in its own process registers products.export with concurrency 2, and Redis lists it under tasks-lab08',
      scenario: trip,
      judge: (e) => judgeRegistration(e, parts.queueName),
    }),
    defineCheck({
      id: 'unknown-job-name-refused',
      name: 'the worker refuses an unknown job name clearly, and the refusal is not retried',
      scenario: trip,
      judge: judgeUnknownName,
    }),
    defineCheck({
      id: 'job-id-is-business-id',
      name: "the producer's job id is the business job_id; the result has the path and the row count",
      scenario: trip,
      judge: judgeSameId,
    }),
    defineCheck({
      id: 'artifact-equals-snapshot',
      name: 'the artifact file equals the submitted snapshot',
      scenario: trip,
      judge: judgeArtifact,
    }),
    defineCheck({
      id: 'invalid-message-refused-before-redis',
      name: 'a malformed id, a credential field or an oversized message never reaches Redis',
      scenario: (signal) => refusedBeforeRedis(parts, signal),
      judge: judgeRefusals,
    }),
    defineCheck({
      id: 'worker-revalidates-message',
      name: "the worker checks the message again: a job that skipped the producer's check fails and writes no file",
      scenario: trip,
      judge: judgeRevalidation,
    }),
    defineCheck({
      id: 'result-kept-one-hour',
      name: 'results are kept 1 hour (removeOnComplete age 3600); the job key has no Redis TTL',
      scenario: trip,
      judge: judgeRetention,
    }),
    defineCheck({
      id: 'removal-is-lazy',
      name: 'removal is lazy: an expired result stays until a later job completes',
      scenario: (signal) => lazyRemoval(parts, signal),
      judge: judgeLazyRemoval,
    }),
    defineCheck({
      id: 'drill-stopped-worker',
      name: 'drill: with the worker stopped the job waits and the CLI times out; a new worker completes the same id',
      timeoutMs: 120_000,
      scenario: (signal) => stoppedWorker(parts, drillWaitSeconds, signal),
      judge: judgeStoppedWorker,
    }),
    defineCheck({
      id: 'dashboard-lists-queue',
      name: 'Bull Board at /admin/queues lists the exports queue, read-only',
      scenario: (signal) => dashboard(parts, signal),
      judge: (e) => judgeDashboard(e, parts.queueName),
    }),
    defineCheck({
      id: 'no-output-shows-password',
      name: 'what broker:check, the worker and submit print never shows a password',
      timeoutMs: 90_000,
      scenario: (signal) => printedOutputs(parts, signal),
      judge: judgePrinted,
    }),
  ];
}

// ---- judges: each decides from the evidence alone ------------------------------------

const short = (id: string | undefined) => (id ?? '?').slice(0, 8);
const said = (answer: Answer) => ('reply' in answer ? answer.reply : answer.refused);

function judgePing(e: BrokerEvidence): CheckOutcome {
  return outcome(
    'reply' in e.pingWithPassword && e.pingWithPassword.reply === 'PONG',
    `PING -> ${said(e.pingWithPassword)} from ${e.where}`,
  );
}

function judgeNoAuth(e: BrokerEvidence): CheckOutcome {
  const refused = 'refused' in e.pingWithoutPassword && /NOAUTH/.test(e.pingWithoutPassword.refused);
  const got =
    'reply' in e.pingWithoutPassword
      ? `got ${e.pingWithoutPassword.reply}: the broker is open to anyone`
      : e.pingWithoutPassword.refused;
  return outcome(refused, `PING without a password -> ${got}`);
}

function judgePersistence(e: BrokerEvidence): CheckOutcome {
  const appendonly = said(e.appendonly);
  const policy = said(e.maxmemoryPolicy);
  return outcome(
    appendonly === 'yes' && policy === 'noeviction',
    `CONFIG GET appendonly -> ${appendonly}, maxmemory-policy -> ${policy}`,
  );
}

function judgeRegistration(e: RoundTripEvidence, queueName: string): CheckOutcome {
  const { ready } = e.worker;
  const ownProcess = ready.pid === e.worker.pid && ready.pid !== e.verifyPid;
  const registered = ready.registered.join(', ');
  return outcome(
    ownProcess &&
      ready.queue === queueName &&
      ready.concurrency === 2 &&
      registered === EXPORT_JOB_NAME &&
      e.workersListedByRedis === 1,
    `worker pid ${ready.pid} (verify is pid ${e.verifyPid}) ready on queue ${ready.queue}, concurrency ${ready.concurrency}, ` +
      `registered: ${registered}; Redis lists ${e.workersListedByRedis} worker(s) on tasks-lab08:${queueName}`,
  );
}

function judgeUnknownName(e: RoundTripEvidence): CheckOutcome {
  const u = e.unknownName;
  const clear = u.failedReason.includes(`no processor registered for job name "${UNKNOWN_JOB_NAME}"`);
  return outcome(
    u.state === 'failed' && clear && u.attemptsMade === 1,
    `job "${UNKNOWN_JOB_NAME}" (${u.attemptsAllowed} attempts allowed) -> ${u.state} after ${u.attemptsMade} attempt(s): ${u.failedReason || '(no reason)'}`,
  );
}

function judgeSameId(e: RoundTripEvidence): CheckOutcome {
  const { message, job } = e;
  if (!job.result) return outcome(false, `job ${job.id} ended ${job.state} with no result: ${job.failedReason}`);
  const expectedPath = `artifacts/${message.job_id}.json`;
  const sameId = job.id === message.job_id;
  return outcome(
    sameId && job.result.job_id === message.job_id && job.result.path === expectedPath && job.result.rows === 1,
    `job_id ${short(message.job_id)}…, BullMQ job id ${sameId ? 'the same' : `"${job.id}" (different)`}; result path ${job.result.path}, rows ${job.result.rows}`,
  );
}

function judgeArtifact(e: RoundTripEvidence): CheckOutcome {
  const path = e.job.result?.path;
  if (!path) return outcome(false, `no result to find the file by (job ${e.job.state}: ${e.job.failedReason})`);
  if (!e.file.exists) return outcome(false, `${path} does not exist`);
  const equal = isDeepStrictEqual(e.file.content, e.message.products);
  const hashMatches = e.file.sha256 === e.job.result?.sha256;
  return outcome(
    equal && hashMatches,
    `${path}: ${equal ? 'deep-equals' : 'DIFFERS from'} the ${e.message.products.length}-product snapshot; sha256 ${hashMatches ? 'matches' : 'does not match'} the result`,
  );
}

function judgeRefusals(e: RefusalEvidence): CheckOutcome {
  const expected: Record<string, string> = {
    'credential field': 'invalid-message',
    'path-like id': 'invalid-message',
    oversized: 'too-large',
  };
  const allRefused = e.answers.length === 3 && e.answers.every((a) => a.answer === expected[a.label]);
  return outcome(
    allRefused && e.jobsAfter === e.jobsBefore,
    `${e.answers.map((a) => `${a.label}: ${a.answer}`).join(', ')}; jobs in the queue ${e.jobsBefore} -> ${e.jobsAfter}`,
  );
}

function judgeRevalidation(e: RoundTripEvidence): CheckOutcome {
  const ok =
    e.bypassed.length === 2 &&
    e.bypassed.every((b) => b.state === 'failed' && /breaks the contract/.test(b.failedReason) && !b.fileWritten);
  return outcome(
    ok,
    e.bypassed
      .map(
        (b) =>
          `${b.label}: ${b.state}${b.failedReason ? ` (${b.failedReason.slice(0, 90)})` : ''}, ${b.fileWritten ? 'FILE WRITTEN' : 'no file'}`,
      )
      .join('; '),
  );
}

function judgeRetention(e: RoundTripEvidence): CheckOutcome {
  const { job } = e;
  const ok =
    isDeepStrictEqual(job.removeOnComplete, { age: RESULT_TTL_SECONDS }) &&
    isDeepStrictEqual(job.removeOnFail, { age: FAILED_RESULT_TTL_SECONDS }) &&
    e.keyTtl === -1 &&
    job.state === 'completed';
  return outcome(
    ok,
    `stored removeOnComplete ${JSON.stringify(job.removeOnComplete) ?? 'not set'}, removeOnFail ${JSON.stringify(job.removeOnFail) ?? 'not set'}; ` +
      `after completion the job is ${job.state} and TTL of its key is ${e.keyTtl} (no expiry: BullMQ deletes it itself)`,
  );
}

function judgeLazyRemoval(e: LazyRemovalEvidence): CheckOutcome {
  return outcome(
    e.stateWhenExpired === 'completed' && e.stateAfterNextJob === 'unknown',
    `a job with age ${e.ageSeconds} s was still "${e.stateWhenExpired}" after ${e.waitedMs} ms; after the next job completed it was "${e.stateAfterNextJob}"`,
  );
}

function judgeStoppedWorker(e: StoppedWorkerEvidence): CheckOutcome {
  if (!e.jobId) return outcome(false, `the CLI printed no job id (exit ${e.cliExitCode})`);
  const expectedLine = `no result within ${e.waitSeconds} s; the job is still waiting`;
  const timedOut = e.cliTimeoutLine?.startsWith(expectedLine) ?? false;
  const sameId = e.resultJobId === e.jobId;
  return outcome(
    e.workersListedAfterKill === 0 &&
      e.cliExitCode === 3 &&
      timedOut &&
      e.stateWhileStopped === 'waiting' &&
      e.finalState === 'completed' &&
      sameId,
    `worker ${e.firstWorkerPid} killed (${e.firstWorkerExit}), Redis lists ${e.workersListedAfterKill} worker(s); ` +
      `CLI exit ${e.cliExitCode}, said "${e.cliTimeoutLine ?? 'nothing about a timeout'}"; job ${short(e.jobId)}… was ${e.stateWhileStopped}; ` +
      `worker ${e.secondWorkerPid} started; job ${e.finalState} ${sameId ? 'under the same id' : `with result for ${short(e.resultJobId)}`}`,
  );
}

function judgeDashboard(e: DashboardEvidence, queueName: string): CheckOutcome {
  const listed = e.queues.find((q) => q.name === queueName);
  return outcome(
    e.pageStatus === 200 &&
      e.pageContentType.startsWith('text/html') &&
      e.pageIsHtml &&
      e.apiStatus === 200 &&
      listed?.readOnlyMode === true,
    `GET /admin/queues -> ${e.pageStatus} ${e.pageContentType}; api/queues -> ${e.apiStatus}, queues: ` +
      `${e.queues.map((q) => `${q.name}${q.readOnlyMode ? ' (read-only)' : ' (WRITABLE)'}`).join(', ') || 'none'}`,
  );
}

function judgePrinted(e: PrintedEvidence): CheckOutcome {
  const chars = e.outputs.reduce((sum, o) => sum + o.chars, 0);
  const leaking = e.outputs.filter((o) => o.secretsFound > 0);
  return outcome(
    e.outputs.length > 0 && chars > 0 && leaking.length === 0,
    leaking.length === 0
      ? `scanned ${e.outputs.map((o) => o.source).join(', ')} (${chars} characters): no password`
      : `a password appears in what ${leaking.map((o) => o.source).join(', ')} printed`,
  );
}
