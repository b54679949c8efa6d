// The trace's path through the real pipe, in this process: a job admitted under a trace
// (admitTraced), lesson 15's publisher with the traced parts, and the observed worker
// (startObservedWorker) on real Redis and MariaDB, with a BullMQ prefix and a database of this
// file's own. The wake-up in BullMQ carries a child span of the submit's trace; the worker's
// phase lines carry the same trace id. Then the `before-claim` fault point: the delivery fails
// before any claim and the row is left exactly as it was (queued, attempts 0).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@tasks-lab/lab-kit';
import { openQueue, waitForFinalState } from '@tasks-lab/08-broker-worker';
import { readJob, seedProducts } from '@tasks-lab/11-mysql-leases';
import { publisherFaults, READ_EVENTS_OF_JOB, startPublisher, type RunningPublisher } from '@tasks-lab/12-outbox';
import { BULK_QUEUE, exportsAddress, FAST_QUEUE } from '@tasks-lab/13-admission';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { QUEUE_PREFIX, readShortObservabilityOptions, WORKER_PROCESS_OPTIONS } from '../src/options.ts';
import { createPhaseLogger, parsePhaseLines, type PhaseLine } from '../src/phase-log.ts';
import { admitTraced, withTrace } from '../src/trace-context.ts';
import { newTrace, parseTraceParent } from '../src/trace.ts';
import { tracedPublisherParts } from '../src/traced-publisher.ts';
import { observedFaults } from '../src/delivery-phases.ts';
import { startObservedWorker } from '../src/worker.ts';

// Long lease, claim and send bound: the tests read the exact sequence of phase lines, and on a
// loaded machine a 1 s send bound or a 1.5 s outbox claim could pass mid-send (a second
// `dispatched`), or a 1.5 s lease before the finish (no scanner runs here to recover it).
const timings = readShortObservabilityOptions({}, { leaseMs: 30_000, claimMs: 30_000, sendTimeoutMs: 10_000 });
const prefix = `${QUEUE_PREFIX}-x${randomBytes(4).toString('hex')}`;
let db: FreshDatabase;
let artifactsDir: string;
let publisher: RunningPublisher;
const output: string[] = [];
const sink = { write: (line: string) => void output.push(line) };

beforeAll(async () => {
  db = await freshDatabase('tracedpipe', { settings: timings });
  await seedProducts(db.pool, 5);
  artifactsDir = await mkdtemp(join(tmpdir(), 'tasks-lab16-artifacts-'));
  const logger = createPhaseLogger({ component: 'publisher', destination: sink });
  publisher = await startPublisher({
    pool: db.pool,
    timings,
    prefix,
    faults: publisherFaults({}),
    parts: tracedPublisherParts(logger),
    report: () => {},
  });
}, 60_000);

afterAll(async () => {
  await publisher?.close();
  for (const queueName of [FAST_QUEUE, BULK_QUEUE] as const) {
    const queue = await openQueue(exportsAddress(queueName, prefix));
    await queue.obliterate({ force: true });
    await queue.close();
  }
  await db?.drop();
  if (artifactsDir) await rm(artifactsDir, { recursive: true, force: true });
});

function startWorker(faultsSpec: string) {
  const settings = WORKER_PROCESS_OPTIONS.read({
    env: {},
    overrides: { database: db.name, queuePrefix: prefix, artifactsDir, concurrency: 1 },
  });
  const logger = createPhaseLogger({ component: 'worker', destination: sink });
  return startObservedWorker({
    queueName: FAST_QUEUE,
    process: settings,
    timings,
    logger,
    faults: observedFaults({ LAB_FAULTS: faultsSpec }),
    log: () => {},
  });
}

async function eventIdsOf(pool: Pool, jobId: string): Promise<string[]> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_EVENTS_OF_JOB, [jobId]);
  return rows.map((row) => String(row.id));
}

const linesOf = (jobId: string): PhaseLine[] =>
  parsePhaseLines(output.join('')).filter((line) => line.job_id === jobId);

describe('the trace from the outbox to the worker', () => {
  it("When a traced job is published and delivered, Then the BullMQ job data holds a traceparent of the job's trace and the worker logs that trace id [test:trace-travels-outbox-to-worker]", async () => {
    const worker = await startWorker('');
    try {
      const trace = newTrace();
      const { jobId } = await withTrace(trace, () =>
        admitTraced(db.pool, [1, 2], { rules: timings, deadlineMs: timings.deadlineMs }),
      );
      publisher.nudge();
      await waitFor('the job to succeed', async () => (await readJob(db.pool, jobId))?.status === 'succeeded', {
        timeoutMs: 10_000,
        intervalMs: 50,
      });

      const [eventId] = await eventIdsOf(db.pool, jobId);
      const queue = await openQueue(exportsAddress(FAST_QUEUE, prefix));
      const sent = await queue.getJob(eventId!).finally(() => queue.close());
      expect(Object.keys(sent?.data ?? {}).sort()).toEqual(['job_id', 'traceparent']);
      const carried = parseTraceParent((sent?.data as { traceparent?: unknown } | undefined)?.traceparent);
      expect(carried?.traceId).toBe(trace.traceId);
      expect(carried?.spanId).not.toBe(trace.spanId);

      await waitFor('the published line', async () => linesOf(jobId).some((l) => l.phase === 'published'), {
        timeoutMs: 2000,
        intervalMs: 20,
      });
      const lines = linesOf(jobId);
      expect(lines.map((l) => `${l.component}:${l.phase}`)).toEqual([
        'publisher:dispatched',
        'worker:received',
        'worker:claimed',
        'worker:published',
      ]);
      expect(new Set(lines.map((l) => l.trace_id))).toEqual(new Set([trace.traceId]));
      expect(lines[0]).toMatchObject({ message_id: eventId, span_id: carried?.spanId });
      expect(lines[1]).toMatchObject({ message_id: eventId, parent_span_id: carried?.spanId });
      expect(lines[3]).toMatchObject({ published: true, attempt: 1, lease_token: lines[2]?.lease_token });
    } finally {
      await worker.close();
    }
  }, 30_000);

  it('When LAB_FAULTS=before-claim:throw:once, Then the delivery fails before any claim and the row stays queued with attempts 0 [test:before-claim-fault-fails-delivery]', async () => {
    const worker = await startWorker('before-claim:throw:once');
    try {
      const { jobId } = await withTrace(newTrace(), () =>
        admitTraced(db.pool, [3], { rules: timings, deadlineMs: timings.deadlineMs }),
      );
      publisher.nudge();
      await waitFor(
        'the event to be sent',
        async () =>
          (await eventIdsOf(db.pool, jobId)).length === 1 && linesOf(jobId).some((l) => l.phase === 'dispatched'),
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      const [eventId] = await eventIdsOf(db.pool, jobId);
      const queue = await openQueue(exportsAddress(FAST_QUEUE, prefix));
      const final = await waitForFinalState(queue, eventId!, { timeoutMs: 10_000 }).finally(() => queue.close());
      expect(final.state).toBe('failed');
      await waitFor('the failed line', async () => linesOf(jobId).some((l) => l.phase === 'failed'), {
        timeoutMs: 2000,
        intervalMs: 20,
      });
      expect(linesOf(jobId).map((l) => l.phase)).toEqual(['dispatched', 'received', 'failed']);
      expect(linesOf(jobId)[2]).toMatchObject({
        level: 'error',
        lease_token: null,
        attempt: null,
        err: { type: 'InjectedFault', code: 'fault-injected' },
      });
      expect(await readJob(db.pool, jobId)).toMatchObject({ status: 'queued', attempts: 0, leaseToken: null });
    } finally {
      await worker.close();
    }
  }, 30_000);
});
