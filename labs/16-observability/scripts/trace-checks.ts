// Lesson 16's trace checks (step 1 of the course: structured phase logs), judged on the lines
// real components printed (scripts/trace-scenarios.ts runs them):
//
//   phase-logs-follow-one-job               one export, followed by its job id through the API,
//                                           the publisher and a worker process: the phases in
//                                           order (each a child span of the one before, since
//                                           two processes' clocks cannot order them), the message id = the outbox event id, the
//                                           lease token = the row's, attempt 1, ONE trace id
//                                           (the client's header's) and a new span per step.
//   logs-hold-no-description-or-credential  every line of that run, of every component, holds
//                                           neither the product description's marker nor a
//                                           password of .env.tasks (and the artifact DOES hold
//                                           the marker: the grep had something to find).
//   trace-survives-recovery                 a job whose lease expired is requeued by the scanner
//                                           with a new event; its second delivery logs attempt
//                                           2, a new token, a new message id, the SAME trace.
//
// buildTraceChecks(deps) builds them without starting anything; deps swap in broken parts for
// the can-fail tests (test/trace-checks.can-fail.test.ts).
import { defineCheck, outcome, sharedScenario, SECOND, type Check } from '@tasks-lab/lab-kit';
import type { ObservabilityOptionValues } from '../src/options.ts';
import type { PhaseLine } from '../src/phase-log.ts';
import {
  followOneJob,
  traceAfterRecovery,
  type FollowEvidence,
  type RecoveryEvidence,
  type TraceParts,
} from './trace-scenarios.ts';

export interface TraceCheckDeps {
  /** Broken parts for the can-fail tests (a worker process of a fixture, a broken publisher part); the rest stays real. */
  traceParts?: Partial<TraceParts>;
  /** @defaultValue traceTimings() */
  traceTimings?: ObservabilityOptionValues;
}

/** The path of one export, as the course's phases name it. */
export const FOLLOWED_PHASES = ['accepted', 'dispatched', 'received', 'claimed', 'published'] as const;

/**
 * At least this many lines must have been grepped, or "nothing leaked" says nothing: the five
 * phase lines, plus the worker's ready line and lesson 15's claim and delivery lines.
 */
export const MIN_LINES_SCANNED = 8;

const short = (id: string | null | undefined) => (id ? `${id.slice(0, 8)}…` : 'none');
const problemsText = (problems: string[]) => (problems[0] ? `; NOTE: ${problems[0].slice(0, 160)}` : '');
const pathText = (lines: PhaseLine[]) => lines.map((l) => `${l.component}:${l.phase}`).join(' → ') || 'no phase lines';

/** "trace 4bf92f35… on all 5 lines" or what differs, and whether every span is new. */
function traceText(lines: PhaseLine[], traceId: string, headerSpan?: string): { ok: boolean; text: string } {
  const ids = [...new Set(lines.map((l) => l.trace_id))];
  const sameTrace = lines.length > 0 && ids.length === 1 && ids[0] === traceId;
  const spans = lines.map((l) => l.span_id).filter((s): s is string => typeof s === 'string');
  const newSpans =
    spans.length === lines.length && new Set(spans).size === spans.length && !spans.includes(headerSpan ?? '');
  const text =
    (sameTrace
      ? `trace ${short(traceId)} on all ${lines.length} lines`
      : `trace ids ${ids.map((id) => (typeof id === 'string' ? short(id) : 'none')).join(', ')} (EXPECTED ${short(traceId)} on every line)`) +
    (newSpans
      ? ', a new span on each'
      : `, span ids ${spans.length} of ${lines.length}, ${new Set(spans).size} distinct (EXPECTED a new span per line)`);
  return { ok: sameTrace && newSpans, text };
}

// ---- 1. one job, followed --------------------------------------------------------

/**
 * Each step's parent span: the step before it. This, not the lines' times, is what proves the
 * order: the publisher writes `dispatched` when the broker's answer reaches it, which can be a
 * moment AFTER the worker already wrote `received` (two processes, two event loops).
 */
const PARENT_OF: Record<string, string> = {
  dispatched: 'accepted',
  received: 'dispatched',
  claimed: 'received',
  published: 'received',
};

function judgeFollow(e: FollowEvidence) {
  if (!e.jobId)
    return outcome(
      false,
      `POST /exports answered ${e.status ?? 'nothing'}: no job to follow (${e.timings})${problemsText(e.problems)}`,
    );
  const parts: string[] = [];
  const at = (phase: string) => e.lines.find((l) => l.phase === phase);
  const phases = e.lines.map((l) => l.phase);
  const eachOnce =
    phases.length === FOLLOWED_PHASES.length &&
    FOLLOWED_PHASES.every((p) => phases.filter((q) => q === p).length === 1);
  const brokenLinks = Object.entries(PARENT_OF).filter(([child, parent]) => {
    const span = at(parent)?.span_id;
    return span === undefined || at(child)?.parent_span_id !== span;
  });
  const inOrder = eachOnce && brokenLinks.length === 0;
  const ordered = inOrder ? FOLLOWED_PHASES.map((p) => at(p)!) : e.lines;
  parts.push(
    `job ${short(e.jobId)}: ${pathText(ordered)}` +
      (inOrder
        ? ' (each step a child span of the one before)'
        : ` (EXPECTED ${FOLLOWED_PHASES.join(' → ')}, each once, each a child span of the one before; not linked: ${brokenLinks.map(([child, parent]) => `${child} to ${parent}`).join(', ') || 'none'})`),
  );

  const [dispatched, received, claimed, published] = [at('dispatched'), at('received'), at('claimed'), at('published')];
  const eventId = e.eventIds.length === 1 ? e.eventIds[0] : undefined;
  const messageOk = eventId !== undefined && dispatched?.message_id === eventId && received?.message_id === eventId;
  parts.push(
    `message_id ${short(dispatched?.message_id)} dispatched, ${short(received?.message_id)} received; outbox event(s) ${e.eventIds.map(short).join(', ') || 'none'}` +
      (messageOk ? ' (the same)' : ' (EXPECTED both = the one event id)'),
  );

  const token = e.row?.leaseToken ?? undefined;
  const tokenOk = token !== undefined && claimed?.lease_token === token && published?.lease_token === token;
  parts.push(
    `lease_token claimed ${short(claimed?.lease_token)}, published ${short(published?.lease_token)}, row ${short(token)}${tokenOk ? ' (the same)' : ' (EXPECTED all three the same)'}`,
  );

  const attemptOk = claimed?.attempt === 1 && published?.attempt === 1 && published.published === true;
  parts.push(
    `attempt ${claimed?.attempt ?? 'none'}/${published?.attempt ?? 'none'}, published ${String(published?.published ?? 'none')}${attemptOk ? '' : ' (EXPECTED attempt 1, published true)'}`,
  );

  const trace = traceText(e.lines, e.header.traceId, e.header.spanId);
  parts.push(`${trace.text} (the header's trace ${short(e.header.traceId)})`);
  const rowOk = e.row?.status === 'succeeded';
  parts.push(`row ${e.row?.status ?? 'missing'}${rowOk ? '' : ' (EXPECTED succeeded)'}`);
  return outcome(
    inOrder && messageOk && tokenOk && attemptOk && trace.ok && rowOk,
    `${parts.join('; ')} (${e.timings})${problemsText(e.problems)}`,
  );
}

// ---- 2. nothing sensitive in any line ------------------------------------------------

function judgeLeaks(e: FollowEvidence) {
  const s = e.leaks;
  const enough = s.lines >= MIN_LINES_SCANNED && s.phaseLines >= FOLLOWED_PHASES.length;
  const clean = s.withMarker === 0 && s.withCredential === 0;
  const netOk = e.artifactHoldsMarker && s.credentialsChecked > 0;
  const observed =
    `${s.lines} lines scanned from ${s.sources.length} sources (${s.sources.join('; ')}), ${s.phaseLines} of them phase lines` +
    (enough ? '' : ` (EXPECTED at least ${MIN_LINES_SCANNED} lines and ${FOLLOWED_PHASES.length} phase lines)`) +
    `; lines holding the description's marker: ${s.withMarker}${s.withMarker === 0 ? '' : ' (EXPECTED 0)'}` +
    `, holding a password: ${s.withCredential} (${s.credentialsChecked} passwords looked for)${s.withCredential === 0 ? '' : ' (EXPECTED 0)'}` +
    `; the artifact ${e.artifactHoldsMarker ? 'holds the marker (the grep had something to find)' : 'does NOT hold the marker (EXPECTED it to: else the grep proves nothing)'}` +
    (s.credentialsChecked > 0 ? '' : '; no password to look for (EXPECTED .env.tasks)');
  return outcome(enough && clean && netOk, `${observed} (${e.timings})${problemsText(e.problems)}`);
}

// ---- 3. the trace across a recovery ---------------------------------------------------

function judgeRecovery(e: RecoveryEvidence) {
  const parts: string[] = [];
  if (!e.firstClaim)
    return outcome(
      false,
      `the direct first claim of job ${short(e.jobId)} took nothing (${e.timings})${problemsText(e.problems)}`,
    );
  const [firstEvent, secondEvent] = e.eventIds;
  const twoEvents = e.eventIds.length === 2;
  parts.push(
    `job ${short(e.jobId)} claimed directly (attempt ${e.firstClaim.attempts}, token ${short(e.firstClaim.token)}), never finished; ${e.eventIds.length} outbox event(s)${twoEvents ? '' : ' (EXPECTED 2)'}`,
  );

  const requeued = e.lines.find((l) => l.component === 'scanner' && l.phase === 'requeued');
  const requeueOk =
    requeued !== undefined && requeued.reason === 'lease_expired' && requeued.message_id === secondEvent;
  parts.push(
    requeued
      ? `scanner: requeued (${String(requeued.reason)}), new event ${short(requeued.message_id)}${requeueOk ? '' : ' (EXPECTED lease_expired and the second event)'}`
      : 'the scanner logged NO requeued line',
  );

  const worker = (messageId: string | undefined, phase: string) =>
    e.lines.find((l) => l.component === 'worker' && l.message_id === messageId && l.phase === phase);
  const firstDelivery = worker(firstEvent, 'received') && worker(firstEvent, 'not-claimed');
  parts.push(
    `first wake-up ${short(firstEvent)}: ${firstDelivery ? 'received, not-claimed (the row was running)' : 'NOT seen as received and not-claimed'}`,
  );

  const claimed = worker(secondEvent, 'claimed');
  const published = worker(secondEvent, 'published');
  const secondOk =
    claimed !== undefined &&
    published !== undefined &&
    secondEvent !== firstEvent &&
    claimed.attempt === 2 &&
    published.attempt === 2 &&
    typeof claimed.lease_token === 'string' &&
    claimed.lease_token !== e.firstClaim.token &&
    claimed.lease_token === e.row?.leaseToken &&
    published.lease_token === claimed.lease_token;
  parts.push(
    claimed
      ? `second wake-up ${short(secondEvent)}: claimed attempt ${claimed.attempt ?? 'none'}, token ${short(claimed.lease_token)}, published attempt ${published?.attempt ?? 'none'}` +
          (secondOk
            ? ' (a new message, a new token, attempt 2)'
            : ` (EXPECTED attempt 2 and a new token = the row's ${short(e.row?.leaseToken)}, not ${short(e.firstClaim.token)})`)
      : `the second wake-up was NOT claimed by the worker (phases: ${pathText(e.lines)})`,
  );
  const trace = traceText(e.lines, e.trace.traceId);
  parts.push(`${trace.text} (the submit's ${short(e.trace.traceId)}; path: ${pathText(e.lines)})`);
  const rowOk = e.row?.status === 'succeeded' && e.row.attempts === 2;
  parts.push(
    `row ${e.row?.status ?? 'missing'}, attempts ${e.row?.attempts ?? 'none'}${rowOk ? '' : ' (EXPECTED succeeded, attempts 2)'}`,
  );
  const ok = twoEvents && requeueOk && Boolean(firstDelivery) && secondOk && trace.ok && rowOk;
  return outcome(ok, `${parts.join('; ')} (${e.timings})${problemsText(e.problems)}`);
}

export function buildTraceChecks(deps: TraceCheckDeps = {}): Check[] {
  const setup = { parts: deps.traceParts, timings: deps.traceTimings };
  const followed = sharedScenario(followOneJob(setup));
  const timeoutMs = 30 * SECOND;
  return [
    defineCheck({
      id: 'phase-logs-follow-one-job',
      name:
        'One export submitted over HTTP with a traceparent header is followed by its job id through the phase logs of the API, the publisher and a worker process: ' +
        "accepted → dispatched → received → claimed → published, the message id = the outbox event id, the lease token = the row's, attempt 1, one trace id (the header's) and a new span per step",
      timeoutMs,
      scenario: followed,
      judge: judgeFollow,
    }),
    defineCheck({
      id: 'logs-hold-no-description-or-credential',
      name:
        "Every line every component printed during that export (stdout and stderr) holds neither the product description's random marker nor a password of .env.tasks; " +
        'the artifact does hold the marker, so the search had something to find',
      timeoutMs,
      scenario: followed,
      judge: judgeLeaks,
    }),
    defineCheck({
      id: 'trace-survives-recovery',
      name: "A job whose first lease expires is requeued by the scanner with a new event; the worker's second delivery logs attempt 2, a new lease token, a new message id and the same trace id as the submit",
      timeoutMs,
      scenario: traceAfterRecovery(setup),
      judge: judgeRecovery,
    }),
  ];
}
