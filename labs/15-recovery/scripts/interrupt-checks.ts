// Lesson 15's interrupt checks (the course's two drills, graded by verify; drill-*.ts files are
// the drills a student runs by hand): a worker PROCESS SIGKILLed mid-export, and a running export
// cancelled over HTTP. The scenarios (scripts/interrupt-scenarios.ts) run the real thing (fresh database, scratch
// BullMQ prefix, worker processes, the publisher, scanner and API in-process); each judge below
// reads only their evidence, and says the path it saw.
// buildInterruptChecks(deps) swaps a broken part in for the can-fail tests; building starts nothing.
import { defineCheck, outcome, type Check, formatDuration } from '@tasks-lab/lab-kit';
import type { RecoveryOptionValues } from '../src/options.ts';
import {
  cancelDrill,
  sigkillDrill,
  type CancelAnswer,
  type CancelEvidence,
  type InterruptParts,
  type InterruptSetup,
  type RowState,
  type SigkillEvidence,
} from './interrupt-scenarios.ts';

export interface InterruptCheckDeps {
  /** Broken parts (the can-fail tests): a worker process of a fixture, a broken scanner or cancel. */
  interruptParts?: Partial<InterruptParts>;
  /** @defaultValue interruptTimings() */
  interruptTimings?: RecoveryOptionValues;
}

/** How far apart two clocks' readings of one instant may be (this process's, the database's, a worker's). */
const CLOCK_SLACK_MS = 100;

const show = (value: unknown) => JSON.stringify(value);
const shortId = (id: string | undefined) => (id ? `${id.slice(0, 8)}…` : 'none');
const clock = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? 'none' : new Date(ms).toISOString().slice(11, 23);
const rowText = (row: RowState | undefined) =>
  row ? `${row.status}, attempts ${row.attempts}${row.cancelRequested ? ', cancel requested' : ''}` : 'no row';
const problemsText = (e: { failures: string[]; problems: string[] }) => {
  const first = [...e.failures, ...e.problems][0];
  return first ? `; NOTE: ${first.slice(0, 160)}` : '';
};

// ---- 1. SIGKILL mid-export ----------------------------------------------------------

function judgeSigkill(e: SigkillEvidence) {
  const parts: string[] = [];
  const c1 = e.firstClaim;
  const killed = c1 !== undefined && c1.attempt === 1 && e.firstExit?.signal === 'SIGKILL';
  parts.push(
    c1
      ? `worker 1 claimed job ${shortId(e.jobId)} on ${e.queueName} (attempt ${c1.attempt}, BullMQ id ${shortId(c1.bullmqId)}), exit ${show(e.firstExit)}`
      : `worker 1 NEVER claimed job ${shortId(e.jobId)}`,
  );
  if (!c1) return outcome(false, `${parts.join('; ')} (${e.timings})${problemsText(e)}`);

  const b = e.beforeSecond;
  const expired = b?.status === 'running' && b.leaseUntil !== null && b.leaseUntil < b.readAt;
  parts.push(
    `before worker 2: ${rowText(b)}, lease until ${clock(b?.leaseUntil)}${expired ? ' (expired)' : ' (EXPECTED running with an expired lease)'}`,
  );

  const r = e.redelivery;
  const nothing =
    r !== undefined &&
    r.stalled >= 1 &&
    !r.claimed &&
    e.afterRedelivery?.status === 'running' &&
    e.afterRedelivery.attempts === 1;
  parts.push(
    r
      ? `BullMQ's stalled redelivery reached worker 2 (stalled ${r.stalled}): claimed ${r.claimed}, row ${rowText(e.afterRedelivery)}${nothing ? ' (claimed NOTHING)' : ' (EXPECTED no claim: a running row is not claimable)'}`
      : 'BullMQ NEVER redelivered the wake-up to worker 2',
  );

  const requeue = e.sightings.find((s) => s.recovered.to === 'queued');
  const next = requeue?.recovered.nextAttemptAt?.getTime();
  const started = e.scannerStartedAt ?? 0;
  const backoffOk =
    next !== undefined &&
    requeue !== undefined &&
    next >= started + e.backoffMs - CLOCK_SLACK_MS &&
    next <= requeue.seenAt + e.backoffMs + CLOCK_SLACK_MS;
  const newEvent = e.events.length === 2 ? e.events[1] : undefined;
  const eventOk =
    newEvent !== undefined &&
    next !== undefined &&
    Math.abs(newEvent.availableAt.getTime() - next) <= 5 &&
    (requeue?.recovered.eventId === undefined || requeue.recovered.eventId === newEvent.eventId);
  parts.push(
    requeue
      ? `the scanner requeued it ${requeue.recovered.from} -> queued (${requeue.recovered.reason}) at ~${clock(requeue.seenAt)}, next_attempt_at ${clock(next)} ` +
          `(${next === undefined ? 'none' : formatDuration(next - requeue.seenAt)} after; backoff ${formatDuration(e.backoffMs)}${backoffOk ? '' : ', NOT honoured'})`
      : `the scanner did NOT requeue it (${show(e.sightings.map((s) => `${s.recovered.from}->${s.recovered.to}`))})`,
  );
  parts.push(
    `${e.events.length} outbox event(s)` +
      (newEvent
        ? `, the new one available at ${clock(newEvent.availableAt.getTime())}${eventOk ? ' (= next_attempt_at)' : ' (EXPECTED = next_attempt_at)'}`
        : " (EXPECTED 2: the first and the scanner's)"),
  );

  const early = e.secondClaims.filter((c) => next === undefined || c.at < next - CLOCK_SLACK_MS);
  const second = e.secondClaims.find((c) => c.attempt === 2);
  const claimOk = second !== undefined && early.length === 0 && e.secondClaims.length === 1;
  parts.push(
    second
      ? `worker 2 claimed attempt 2 at ${clock(second.at)}${claimOk ? ' (after next_attempt_at)' : ` (EXPECTED one claim, after next_attempt_at; claims ${show(e.secondClaims.map((c) => `#${c.attempt}@${clock(c.at)}`))})`}`
      : `worker 2 never claimed attempt 2 (claims ${show(e.secondClaims.map((c) => `#${c.attempt}@${clock(c.at)}`))})`,
  );
  const f = e.final;
  const finalOk = f?.status === 'succeeded' && f.attempts === 2 && e.gate.counter === 0 && e.gate.active === 0;
  parts.push(
    `final: ${rowText(f)}, gate counter ${e.gate.counter} (active ${e.gate.active})${finalOk ? '' : ' (EXPECTED succeeded, attempts 2, gate 0)'}`,
  );
  return outcome(
    killed && expired && nothing && requeue !== undefined && backoffOk && eventOk && claimOk && finalOk,
    `${parts.join('; ')} (${e.timings})${problemsText(e)}`,
  );
}

// ---- 2. cancel a running export -------------------------------------------------------

const answerText = (a: CancelAnswer | undefined) => (a ? `${a.status} ${a.outcome ?? '?'}` : 'no answer');

function judgeCancel(e: CancelEvidence) {
  const parts: string[] = [];
  if (!e.jobId || !e.claim)
    return outcome(
      false,
      `the export was ${e.jobId ? `submitted (job ${shortId(e.jobId)}) but NEVER claimed` : 'NOT submitted'} (${e.timings})${problemsText(e)}`,
    );
  const answersOk =
    e.cancel?.status === 202 &&
    e.cancel.outcome === 'cancel-requested' &&
    e.repeat?.status === 202 &&
    e.repeat.outcome === 'already-requested';
  parts.push(
    `job ${shortId(e.jobId)} claimed, cancelled ${e.cancelAfterMs} ms later: ${answerText(e.cancel)} (job ${e.cancel?.jobStatus ?? '?'}), repeat ${answerText(e.repeat)}` +
      (answersOk ? '' : ' (EXPECTED 202 cancel-requested, then 202 already-requested)'),
  );
  const d = e.delivery;
  const stopped =
    d !== undefined &&
    d.claimed &&
    !d.published &&
    d.stoppedBecause === 'lost-lease-or-cancelled' &&
    d.chunksWritten < d.chunksTotal;
  parts.push(
    d
      ? `the worker wrote ${d.chunksWritten}/${d.chunksTotal} chunks, ${d.stoppedBecause ? `stopped: ${d.stoppedBecause}` : 'did NOT stop'}, published ${d.published}` +
          (stopped ? ' (at a chunk boundary)' : ' (EXPECTED a stop before the last chunk)')
      : 'the worker NEVER reported the delivery',
  );
  const noArtifact = e.artifacts.length === 0;
  parts.push(
    noArtifact
      ? 'no artifact (nor temp file) left'
      : `artifacts left: ${show(e.artifacts.map((f) => f.slice(0, 20) + '…'))} (EXPECTED none)`,
  );
  const finishRefused = e.finishWithToken === false;
  parts.push(
    `FINISH with the job's token: ${e.finishWithToken === undefined ? 'not asked (no token on the row)' : e.finishWithToken ? 'PUBLISHED (EXPECTED refused)' : 'refused'}`,
  );
  const s = e.afterScanner;
  const cancelled =
    s?.status === 'cancelled' && e.gateWhileRunning === 1 && e.gateAfter?.counter === 0 && e.gateAfter.active === 0;
  parts.push(
    `after the lease: ${rowText(s)}${e.scannerMove ? ` (scanner: ${e.scannerMove.from} -> ${e.scannerMove.to}, ${e.scannerMove.reason})` : ''}, ` +
      `gate counter ${e.gateWhileRunning ?? '?'} -> ${e.gateAfter?.counter ?? '?'} (active ${e.gateAfter?.active ?? '?'})${cancelled ? '' : ' (EXPECTED cancelled, gate 1 -> 0)'}`,
  );
  const t = e.terminal;
  const same = (a: RowState | undefined, b: RowState | undefined) =>
    a !== undefined &&
    b !== undefined &&
    a.status === b.status &&
    a.updatedAt === b.updatedAt &&
    a.cancelRequested === b.cancelRequested &&
    a.resultRef === b.resultRef;
  const terminalOk =
    t !== undefined &&
    t.before?.status === 'succeeded' &&
    t.answer.status === 409 &&
    t.answer.outcome === 'job-terminal' &&
    same(t.before, t.after);
  parts.push(
    t
      ? `a succeeded job cancelled: ${answerText(t.answer)}, row ${same(t.before, t.after) ? 'unchanged' : `CHANGED (${rowText(t.before)} -> ${rowText(t.after)})`}${terminalOk ? '' : ' (EXPECTED 409 job-terminal, unchanged)'}`
      : 'no second job to cancel',
  );
  return outcome(
    answersOk && stopped && noArtifact && finishRefused && cancelled && terminalOk,
    `${parts.join('; ')} (${e.timings})${problemsText(e)}`,
  );
}

export function buildInterruptChecks(deps: InterruptCheckDeps = {}): Check[] {
  const setup: InterruptSetup = { parts: deps.interruptParts, timings: deps.interruptTimings };
  return [
    defineCheck({
      id: 'lease-recovered-after-sigkill',
      name:
        "A worker process SIGKILLed mid-export: BullMQ's stalled redelivery reaches a new worker and claims nothing (a running row with an expired lease is not claimable); " +
        'the scanner requeues the job with next_attempt_at = now + backoff and a new outbox event available then; the job succeeds on attempt 2, claimed no earlier',
      timeoutMs: 45_000,
      scenario: sigkillDrill(setup),
      judge: judgeSigkill,
    }),
    defineCheck({
      id: 'cancelled-never-publishes',
      name:
        'A running export cancelled over HTTP stops at the next chunk boundary, leaves no artifact and is never published (FINISH refuses); the scanner moves it to cancelled ' +
        'after its lease and it leaves the gate counter; a repeat cancel is already-requested, a succeeded job answers 409 and is unchanged',
      timeoutMs: 45_000,
      scenario: cancelDrill(setup),
      judge: judgeCancel,
    }),
  ];
}
