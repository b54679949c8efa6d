// The producer side: it fixes the deadline ONCE, at submission, and puts it in the
// job. Retries reuse the same job and so the same deadline_at; nothing recomputes it.
//   pnpm submit --fail-until 2             two temporary failures, then success
//   pnpm submit --deadline-ms=-1000        already expired: fails before any read
//   pnpm submit --permanent                fails once, never retried
import { Queue, QueueEvents, type Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { ensureInfra, labPrefix } from '@tasks-lab/infra';
import { retryLabConnection } from './connection.ts';
import { RETRY_EXPORT_JOB_NAME, PLANNED_BACKOFF, parseRetryExportData, type RetryExportData } from './export-job.ts';
import { DEFAULT_EXPORT_DEADLINE_MS, EXPORT_ATTEMPTS } from './retry-policy.ts';
import { RETRY_QUEUE_DEFAULT } from './worker.ts';

export interface RetryExportRequest {
  /** The deadline, counted from now. Negative = already expired (a drill). */
  deadlineInMs?: number;
  failUntil?: number;
  permanent?: boolean;
  readMs?: number;
  /** All runs, the first included. */
  attempts?: number;
  now?: number;
}

export async function submitRetryExport(queue: Queue, request: RetryExportRequest = {}): Promise<Job<RetryExportData>> {
  const now = request.now ?? Date.now();
  const data = parseRetryExportData({
    job_id: randomUUID(),
    deadline_at: now + (request.deadlineInMs ?? DEFAULT_EXPORT_DEADLINE_MS),
    fail_until: request.failUntil ?? 0,
    fail_with: request.permanent ? 'permanent' : 'temporary',
    read_ms: request.readMs ?? 0,
  });
  return queue.add(RETRY_EXPORT_JOB_NAME, data, {
    jobId: data.job_id,
    attempts: request.attempts ?? EXPORT_ATTEMPTS,
    backoff: PLANNED_BACKOFF,
    // Keep finished jobs an hour for inspection, then let BullMQ drop them.
    removeOnComplete: { age: 3600 },
    removeOnFail: { age: 3600 },
  });
}

/** The producer's own wait for the outcome: it bounds how long this terminal waits, not the job's deadline. */
export async function waitForOutcome(job: Job, events: QueueEvents, waitMs: number): Promise<{ state: string; detail: string }> {
  try {
    const result = await job.waitUntilFinished(events, waitMs);
    return { state: 'completed', detail: JSON.stringify(result) };
  } catch (err) {
    return { state: 'failed', detail: err instanceof Error ? err.message : String(err) };
  }
}

async function main(): Promise<void> {
  // `pnpm submit -- --x` passes the `--` through; drop it.
  const args = process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--'));
  const { values } = parseArgs({
    args,
    options: {
      'fail-until': { type: 'string', default: '2' },
      'deadline-ms': { type: 'string', default: String(DEFAULT_EXPORT_DEADLINE_MS) },
      'read-ms': { type: 'string', default: '0' },
      permanent: { type: 'boolean', default: false },
    },
  });
  await ensureInfra({ services: ['redis'] });
  const queueName = process.env.RETRY_QUEUE || RETRY_QUEUE_DEFAULT;
  const queue = new Queue(queueName, { connection: retryLabConnection(), prefix: labPrefix('10') });
  const events = new QueueEvents(queueName, { connection: retryLabConnection(), prefix: labPrefix('10') });
  try {
    await events.waitUntilReady();
    const job = await submitRetryExport(queue, {
      failUntil: Number(values['fail-until']),
      deadlineInMs: Number(values['deadline-ms']),
      readMs: Number(values['read-ms']),
      permanent: values.permanent,
    });
    console.log(`submitted ${job.id} (deadline_at ${new Date(job.data.deadline_at).toISOString()}, attempts ${job.opts.attempts})`);
    const outcome = await waitForOutcome(job, events, 60_000);
    const finished = await queue.getJob(job.id!);
    console.log(`${outcome.state}: ${outcome.detail} (runs: ${finished?.attemptsMade ?? '?'})`);
  } finally {
    await events.close();
    await queue.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
