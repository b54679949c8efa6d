// Lesson 16's API at its edges, in this process against a fresh database: the trace context
// (a valid traceparent continued: same trace id, a new span, written on the job and in the
// `accepted` phase line; an invalid one ignored: 202 with a new trace), GET /metrics, GET
// /monitoring, and lesson 01's 404 and 405 answers through the outer app. Nobody listens to
// the nudges here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RowDataPacket } from 'mysql2/promise';
import type { RunningServer } from '@tasks-lab/01-state-machine';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { parseExposition, sampleValue } from '../src/metrics.ts';
import type { MonitoringSnapshot } from '../src/monitoring.ts';
import { createPhaseLogger, parsePhaseLines } from '../src/phase-log.ts';
import { startServer } from '../src/server.ts';
import { parseTraceParent } from '../src/trace.ts';

const INCOMING = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
/** The trace a job row carries. Rows: 0 or 1. Parameters: [jobId]. */
const TRACE_OF_JOB = `SELECT trace_parent FROM export_jobs WHERE id = ?`;

let db: FreshDatabase;
let api: RunningServer;
let logged = '';
const lines: string[] = [];

beforeAll(async () => {
  db = await freshDatabase('apphttp');
  const logger = createPhaseLogger({
    component: 'api',
    destination: { write: (chunk: string) => void (logged += chunk) },
  });
  api = await startServer(0, { pool: db.pool, nudge: async () => {}, logger, log: (line) => lines.push(line) });
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

async function submit(
  headers: Record<string, string> = {},
): Promise<{ status: number; traceparent: string | null; jobId: string }> {
  const response = await fetch(`${api.url}/exports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ product_ids: [1, 2] }),
  });
  const body = (await response.json()) as { id: string };
  return { status: response.status, traceparent: response.headers.get('traceparent'), jobId: body.id };
}

async function traceOfJob(jobId: string): Promise<string | null> {
  const [rows] = await db.pool.query<RowDataPacket[]>(TRACE_OF_JOB, [jobId]);
  return rows[0]?.trace_parent === null ? null : String(rows[0]?.trace_parent);
}

describe('trace context', () => {
  it('When POST /exports carries a valid traceparent, Then the answer continues it (same trace id, new span), the job row and the accepted line carry that span [test:http-traceparent-continued]', async () => {
    const answer = await submit({ traceparent: INCOMING });
    expect(answer.status).toBe(202);
    const trace = parseTraceParent(answer.traceparent);
    expect(trace?.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(trace?.spanId).not.toBe('00f067aa0ba902b7');
    expect(await traceOfJob(answer.jobId)).toBe(answer.traceparent);
    const accepted = parsePhaseLines(logged).filter((line) => line.job_id === answer.jobId);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]).toMatchObject({
      phase: 'accepted',
      component: 'api',
      trace_id: trace?.traceId,
      span_id: trace?.spanId,
      queue: 'exports.fast',
    });
  });

  it('When the traceparent is invalid, Then it is ignored: 202 with a new trace, written on the job [test:http-invalid-traceparent-new-trace]', async () => {
    const answer = await submit({ traceparent: INCOMING.toUpperCase() });
    expect(answer.status).toBe(202);
    const trace = parseTraceParent(answer.traceparent);
    expect(trace).toBeDefined();
    expect(trace?.traceId).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(await traceOfJob(answer.jobId)).toBe(answer.traceparent);
    const none = await submit();
    expect(parseTraceParent(none.traceparent)?.traceId).not.toBe(trace?.traceId);
    expect(await traceOfJob(none.jobId)).toBe(none.traceparent);
  });

  it('When any route answers (a GET, a 404), Then it carries its own traceparent [test:http-every-answer-traced]', async () => {
    const { jobId } = await submit();
    const read = await fetch(`${api.url}/exports/${jobId}`);
    expect(read.status).toBe(200);
    expect(parseTraceParent(read.headers.get('traceparent'))).toBeDefined();
    const missing = await fetch(`${api.url}/no-such-route`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'not-found' });
    expect(parseTraceParent(missing.headers.get('traceparent'))).toBeDefined();
  });
});

describe('GET /metrics and GET /monitoring', () => {
  it("When /metrics is scraped, Then 200 in prom-client's text format with the job counts; other methods get 405 JSON [test:http-metrics]", async () => {
    const response = await fetch(`${api.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parseExposition(await response.text());
    expect(sampleValue(samples, 'tasks_lab_jobs', { status: 'queued' })).toBeGreaterThanOrEqual(4);
    expect(sampleValue(samples, 'tasks_lab_up', { source: 'mysql' })).toBe(1);
    const post = await fetch(`${api.url}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await post.json()).toMatchObject({ error: 'method-not-allowed' });
  });

  it('When /monitoring is read, Then the six answers as JSON, ages null where nothing is measured; other methods get 405 [test:http-monitoring]', async () => {
    const response = await fetch(`${api.url}/monitoring`);
    expect(response.status).toBe(200);
    const snapshot = (await response.json()) as MonitoringSnapshot;
    expect(snapshot.statusCounts).toMatchObject({ running: 0, succeeded: 0, failed: 0, cancelled: 0 });
    expect(snapshot.statusCounts.queued).toBeGreaterThanOrEqual(4);
    expect(snapshot.unpublished.oldestAgeSeconds).toBeGreaterThan(0);
    expect(snapshot.queuedWithoutPending).toEqual({ count: 0, oldestDispatchAgeSeconds: null });
    expect(snapshot.oldestActive.length).toBeGreaterThanOrEqual(4);
    const del = await fetch(`${api.url}/monitoring`, { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(await del.json()).toMatchObject({ error: 'method-not-allowed' });
  });
});
