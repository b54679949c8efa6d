// The request's trace, carried to the code that writes the job. Lesson 13's app calls
// `admit(pool, ids, options)` without the request; rather than thread a `traceparent` through
// lessons 11 to 15's layers, an Express middleware runs the rest of the request inside Node's
// AsyncLocalStorage (the mechanism OpenTelemetry's Node context manager uses), and the admit
// wrapper reads the trace from there. Every await inside the request sees the same store.
//
// The trace is written on the job row in the SAME transaction as the job and its event
// (lesson 13's jobColumns), so a job can never exist without it; the publisher sends
// each of the job's events as a child span of it (src/traced-publisher.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestHandler } from 'express';
import { admitExport, type AdmitOptions, type AdmitResult } from '@tasks-lab/13-admission';
import type { Pool } from 'mysql2/promise';
import { continueOrStart, formatTraceParent, type TraceParent } from './trace.ts';

const requestTrace = new AsyncLocalStorage<TraceParent>();

/** The trace of the request being handled, if any. */
export const currentTrace = (): TraceParent | undefined => requestTrace.getStore();

/** Runs `fn` with `trace` as the current trace (tests, the matrix, scripts that submit without HTTP). */
export const withTrace = <T>(trace: TraceParent, fn: () => T): T => requestTrace.run(trace, fn);

/**
 * Every request gets a span: a child of its `traceparent` header when that is valid, else a new
 * trace (an invalid header is ignored, never a 4xx: tracing must not refuse work). The response
 * carries the span's `traceparent` so a client can find its request in the logs.
 */
export function traceContextMiddleware(): RequestHandler {
  return (req, res, next) => {
    const trace = continueOrStart(req.get('traceparent'));
    res.set('traceparent', formatTraceParent(trace));
    requestTrace.run(trace, () => next());
  };
}

/**
 * Lesson 13's admitExport, with the current trace (or a new one) written on the job's row by the
 * job's own INSERT (lesson 13's jobColumns: a group's multi-row INSERT carries each member's
 * trace; an admission alone sets it in its transaction). Either way it commits with the job, so
 * a job can never exist without its trace.
 */
export async function admitTraced(
  pool: Pool,
  productIds: readonly number[],
  options: AdmitOptions = {},
): Promise<AdmitResult> {
  const trace = currentTrace() ?? continueOrStart(undefined);
  return admitExport(pool, productIds, {
    ...options,
    jobColumns: { ...options.jobColumns, trace_parent: formatTraceParent(trace) },
  });
}
