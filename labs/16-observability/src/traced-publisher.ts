// Lesson 16's publisher: lesson 15's (lesson 12's loop with lesson 15's confirmation that records
// the dispatch on the job row), with the job's trace carried in each wake-up:
//
//   1. claim    lesson 12's claimEvents, unchanged; THEN, outside its transaction, one plain
//               read of the claimed events' job traces (export_jobs.trace_parent, written with
//               the job at the submit).
//   2. send     `{ job_id, traceparent }`: traceparent is a NEW span, a child of the job's
//               trace (absent when the job has none); the BullMQ job id is still the event id
//               (lesson 12), and the options are lesson 11's. One `dispatched` phase line per
//               send the broker accepted.
//   3. confirm  lesson 15's confirmAndRecordDispatch.
//
// Why the trace is read apart from the claim, not joined into it: the claim is a locking read of
// the outbox (FOR UPDATE SKIP LOCKED). A join to export_jobs there would lock job rows too,
// outbox first and job second, the opposite of the scanner's and the confirmation's order (job,
// then outbox): a deadlock waiting to happen. The trace never changes after the submit commits,
// so a plain read a moment later sees the same value, and holds no lock at all.
//
// Tracing never stops work: if that read fails, the events are sent without a traceparent.
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { EXPORT_JOB_NAME, enqueue } from '@tasks-lab/08-broker-worker';
import {
  InvalidWakeUpError,
  parseWakeUp,
  WAKE_UP_JOB_OPTIONS,
  type WakeUpJob,
  type WakeUpMessage,
  type WakeUpQueue,
} from '@tasks-lab/11-mysql-leases';
import { claimEvents, PUBLISHER_PARTS, type ClaimedEvent, type PublisherParts } from '@tasks-lab/12-outbox';
import { dispatchRecordingParts } from '@tasks-lab/15-recovery';
import type { PhaseLogger } from './phase-log.ts';
import { childSpan, formatTraceParent, parseTraceParent, traceFields, type TraceParent } from './trace.ts';

/** What a lesson 16 wake-up carries: lesson 11's `{ job_id }`, and the trace when the job has one. */
export interface TracedWakeUp {
  job_id: string;
  traceparent?: string;
}

/** Lesson 12's claimed event, with its job's trace (the column's text) when there is one. */
export type TracedEvent = ClaimedEvent & { traceParent?: string };

/**
 * The claimed events' job traces, read once per round, no lock. Rows returned: one per event
 * id found (trace_parent NULL for a job submitted without one). Parameters: [eventIds].
 */
export const READ_EVENT_TRACES = `
  SELECT o.id AS event_id, j.trace_parent
  FROM export_outbox AS o
  JOIN export_jobs AS j ON j.id = o.job_id
  WHERE o.id IN (?)`;

const ALLOWED_KEYS = new Set(['job_id', 'traceparent']);

/**
 * Reads a wake-up: exactly `job_id` (a UUID, lower-cased: lesson 11's rule) and, optionally,
 * `traceparent`. Any other field, or a bad job_id, throws lesson 11's InvalidWakeUpError; a bad
 * traceparent is dropped (tracing must not refuse work): the delivery runs without a trace.
 */
export function parseTracedWakeUp(data: unknown): { message: WakeUpMessage; trace?: TraceParent } {
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new InvalidWakeUpError('got something that is not an object');
  const keys = Object.keys(data);
  if (!keys.every((key) => ALLOWED_KEYS.has(key)))
    throw new InvalidWakeUpError(
      `got the fields ${JSON.stringify(keys.slice(0, 5))} (lesson 16 adds only "traceparent")`,
    );
  const { job_id: jobId, traceparent } = data as { job_id?: unknown; traceparent?: unknown };
  const message = parseWakeUp({ job_id: jobId });
  const trace = parseTraceParent(traceparent);
  return trace ? { message, trace } : { message };
}

/** What is stored in BullMQ: the parsed message, with the traceparent only when it is valid. */
function validTracedWakeUp(data: unknown): TracedWakeUp {
  const { message, trace } = parseTracedWakeUp(data);
  return trace ? { job_id: message.job_id, traceparent: formatTraceParent(trace) } : { job_id: message.job_id };
}

/** Lesson 12's claim, then the traces of the claimed events' jobs (see the header). */
export async function claimTracedEvents(
  pool: Pool,
  options: { batch: number; claimMs: number },
  logger?: PhaseLogger,
): Promise<TracedEvent[]> {
  const events = await claimEvents(pool, options);
  if (events.length === 0) return events;
  try {
    const [rows] = await pool.query<RowDataPacket[]>(READ_EVENT_TRACES, [events.map((event) => event.eventId)]);
    const traces = new Map(
      rows.map((row) => [String(row.event_id), row.trace_parent === null ? undefined : String(row.trace_parent)]),
    );
    return events.map((event) => {
      const traceParent = traces.get(event.eventId);
      return traceParent ? { ...event, traceParent } : event;
    });
  } catch (err) {
    logger?.pino.warn(
      { err },
      `reading the traces of ${events.length} claimed event(s) failed: they are sent without one`,
    );
    return events;
  }
}

/**
 * Sends one event's wake-up: `{ job_id, traceparent }` (a child span of the job's trace), BullMQ
 * job id = the event id, lesson 11's job options. Logs `dispatched` once the broker accepted it.
 */
export async function sendTracedWakeUp(
  queue: WakeUpQueue,
  event: TracedEvent,
  logger?: PhaseLogger,
): Promise<WakeUpJob> {
  const parent = parseTraceParent(event.traceParent);
  const span = parent ? childSpan(parent) : undefined;
  const data: TracedWakeUp = span
    ? { job_id: event.jobId, traceparent: formatTraceParent(span) }
    : { job_id: event.jobId };
  const sent = await enqueue(queue, EXPORT_JOB_NAME, data, {
    jobId: event.eventId,
    validate: validTracedWakeUp,
    jobOptions: WAKE_UP_JOB_OPTIONS,
  });
  logger?.phase({
    job_id: event.jobId,
    phase: 'dispatched',
    message_id: event.eventId,
    ...traceFields(span),
    parent_span_id: parent?.spanId,
    queue: event.queueName,
    send_attempt: event.sendAttempts,
  });
  return sent;
}

/**
 * Lesson 15's publisher parts (lesson 12's claim, send and release; lesson 15's confirmation),
 * with the traced claim and send. `confirmFaults`: the confirmation's fault point, as lesson 15's
 * publisher process passes it.
 */
export function tracedPublisherParts(
  logger?: PhaseLogger,
  confirmFaults?: Parameters<typeof dispatchRecordingParts>[0],
): PublisherParts {
  return {
    ...PUBLISHER_PARTS,
    ...dispatchRecordingParts(confirmFaults),
    claimEvents: (pool, options) => claimTracedEvents(pool, options, logger),
    sendWakeUp: (queue, event) => sendTracedWakeUp(queue, event as TracedEvent, logger),
  };
}
