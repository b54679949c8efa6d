// W3C Trace Context (https://www.w3.org/TR/trace-context/), the part this lab needs: the
// `traceparent` value `00-<trace id>-<parent span id>-<flags>`, in lower-case hex.
//
//   trace id   32 hex digits (16 bytes), the same for every step of one job's path
//   span id    16 hex digits (8 bytes), new for every step (the submit, each send, each delivery)
//   flags      2 hex digits; 01 = sampled
//
// An all-zero trace id or span id is invalid, and so is version ff. A header we cannot parse is
// not an error for the client (tracing must never refuse work): the submit starts a new trace.
// No OpenTelemetry SDK here: the format is small, and writing it out shows what travels.
import { randomBytes } from 'node:crypto';

export interface TraceParent {
  traceId: string;
  spanId: string;
  flags: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ALL_ZERO = /^0+$/;

/** The traceparent's length, 55 characters (the column's CHAR(55)). */
export const TRACEPARENT_LENGTH = 55;

/** Parses a `traceparent` value; undefined for anything that is not a valid version-00 one (no throw). */
export function parseTraceParent(value: unknown): TraceParent | undefined {
  if (typeof value !== 'string' || value.length !== TRACEPARENT_LENGTH) return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const [, version, traceId, spanId, flags] = match as unknown as [string, string, string, string, string];
  if (version !== '00' || ALL_ZERO.test(traceId) || ALL_ZERO.test(spanId)) return undefined;
  return { traceId, spanId, flags };
}

export function formatTraceParent(trace: TraceParent): string {
  return `00-${trace.traceId}-${trace.spanId}-${trace.flags}`;
}

/**
 * Random bytes for ids, taken from a pool filled 4 KiB at a time (what Node's own randomUUID
 * does): one call into OpenSSL per 256 span ids instead of one per id, which was 2-3 % of a
 * worker's CPU with a span per phase.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

function takeRandom(bytes: number): Buffer {
  if (used + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  used += bytes;
  return pool.subarray(used - bytes, used);
}

const hex = (bytes: number): string => {
  // The bytes can, in theory, be all zeros: the spec forbids that value.
  for (;;) {
    const value = takeRandom(bytes).toString('hex');
    if (!ALL_ZERO.test(value)) return value;
  }
};

/** A new trace: a new trace id and span id, sampled. */
export function newTrace(): TraceParent {
  return { traceId: hex(16), spanId: hex(8), flags: '01' };
}

/** The next step of the same trace: same trace id and flags, a new span id. */
export function childSpan(parent: TraceParent): TraceParent {
  return { traceId: parent.traceId, spanId: hex(8), flags: parent.flags };
}

/** A child of the incoming header when it is valid, else a new trace. */
export function continueOrStart(header: unknown): TraceParent {
  const parent = parseTraceParent(header);
  return parent ? childSpan(parent) : newTrace();
}

/** What a phase log carries of a trace: `{ trace_id, span_id }` (empty when there is none). */
export function traceFields(trace: TraceParent | undefined): { trace_id?: string; span_id?: string } {
  return trace ? { trace_id: trace.traceId, span_id: trace.spanId } : {};
}
