// The products.export worker of this lesson: it records each delivery, writes the
// artifact atomically, and (for the drills only) can kill its own process right after
// the rename, i.e. after the work is done but before BullMQ hears that it is done.
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { labPrefix, redisOptions } from '@tasks-lab/infra';
import type { ExportMessage } from '@tasks-lab/08-broker-worker';
import { writeArtifactAtomically, type ArtifactOutcome, type RenderArtifact, type ArtifactWriter } from './artifact.ts';
import { recordExecution } from './execution-log.ts';
import { EXPORT_TASK_NAME, bullConnection } from './queue.ts';

/** `once`: the first delivery of each job dies after the rename; `always`: every delivery does (a poison job). */
export type CrashPoint = 'never' | 'once' | 'always';

export interface ExportWorkerOptions {
  queueName: string;
  artifactDir: string;
  /** How long a job's lock lives without renewal. Course/BullMQ default 30000. */
  lockDurationMs?: number;
  /** How often this worker looks for jobs whose lock lapsed. BullMQ default 30000. */
  stalledIntervalMs?: number;
  /** Stall re-runs allowed before the job fails. BullMQ default 1. */
  maxStalledCount?: number;
  concurrency?: number;
  crashAfterRename?: CrashPoint;
  /** Where `once` remembers that a job already crashed its worker. */
  crashMarkerDir?: string;
  render?: RenderArtifact;
  write?: ArtifactWriter;
}

export interface DeliveryResult extends ArtifactOutcome {
  pid: number;
  bullJobId: string;
}

export const WORKER_DEFAULTS = { lockDurationMs: 30_000, stalledIntervalMs: 30_000, maxStalledCount: 1, concurrency: 1 } as const;

export function createExportWorker(options: ExportWorkerOptions): { worker: Worker; close: () => Promise<void> } {
  const log = new Redis(redisOptions());
  const write = options.write ?? writeArtifactAtomically;
  const crashMarkerDir = options.crashMarkerDir ?? join(options.artifactDir, '.crash-markers');

  const processor = async (job: Job<ExportMessage>): Promise<DeliveryResult> => {
    const message = job.data;
    // Record first: if this process dies a millisecond later, the delivery still counts.
    await recordExecution(log, options.queueName, message.job_id, {
      bullJobId: job.id ?? '?',
      pid: process.pid,
      attemptsStarted: job.attemptsStarted,
      attemptsMade: job.attemptsMade,
      startedAt: Date.now(),
    });
    const outcome = await write(options.artifactDir, message, {
      render: options.render,
      afterRename: async () => {
        if (await shouldCrash(options.crashAfterRename ?? 'never', crashMarkerDir, message.job_id)) {
          // SIGKILL: no finally blocks, no close(); the job stays active in Redis with a lock nobody renews.
          process.kill(process.pid, 'SIGKILL');
        }
      },
    });
    return { ...outcome, pid: process.pid, bullJobId: job.id ?? '?' };
  };

  const worker = new Worker<ExportMessage, DeliveryResult>(options.queueName, processor, {
    connection: bullConnection(),
    prefix: labPrefix('09'),
    concurrency: options.concurrency ?? WORKER_DEFAULTS.concurrency,
    lockDuration: options.lockDurationMs ?? WORKER_DEFAULTS.lockDurationMs,
    stalledInterval: options.stalledIntervalMs ?? WORKER_DEFAULTS.stalledIntervalMs,
    maxStalledCount: options.maxStalledCount ?? WORKER_DEFAULTS.maxStalledCount,
  });
  worker.on('error', (err) => console.error(`worker ${process.pid}: ${err.message}`));
  return {
    worker,
    async close() {
      await worker.close();
      log.disconnect();
    },
  };
}

/** The marker file is created with O_EXCL, so exactly one delivery of a job wins the right to crash. */
async function shouldCrash(point: CrashPoint, markerDir: string, jobId: string): Promise<boolean> {
  if (point === 'never') return false;
  if (point === 'always') return true;
  await mkdir(markerDir, { recursive: true });
  try {
    await (await open(join(markerDir, `${jobId}.crashed`), 'wx')).close();
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number >= 0, got "${raw}"`);
  return value;
}

function crashPointFromEnv(): CrashPoint {
  const raw = process.env.CRASH_AFTER_RENAME ?? 'never';
  if (raw === '1') return 'once';
  if (raw === 'never' || raw === 'once' || raw === 'always') return raw;
  throw new Error(`CRASH_AFTER_RENAME must be never, once (or 1) or always, got "${raw}"`);
}

/** Reads the worker's settings from the environment (the drills set them), starts it, stops it on SIGTERM/SIGINT. */
export async function startWorkerFromEnv(overrides: Partial<ExportWorkerOptions> = {}): Promise<void> {
  const queueName = process.env.QUEUE_NAME ?? 'products-export';
  const { worker, close } = createExportWorker({
    queueName,
    artifactDir: process.env.ARTIFACT_DIR ?? join(process.cwd(), 'artifacts'),
    lockDurationMs: intFromEnv('LOCK_DURATION_MS', WORKER_DEFAULTS.lockDurationMs),
    stalledIntervalMs: intFromEnv('STALLED_INTERVAL_MS', WORKER_DEFAULTS.stalledIntervalMs),
    maxStalledCount: intFromEnv('MAX_STALLED_COUNT', WORKER_DEFAULTS.maxStalledCount),
    concurrency: intFromEnv('CONCURRENCY', WORKER_DEFAULTS.concurrency),
    crashAfterRename: crashPointFromEnv(),
    crashMarkerDir: process.env.CRASH_MARKER_DIR,
    ...overrides,
  });
  const stop = () => void close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await worker.waitUntilReady();
  console.log(`worker ${process.pid} ready: queue ${queueName}, job ${EXPORT_TASK_NAME}, lockDuration ${worker.opts.lockDuration} ms, stalledInterval ${worker.opts.stalledInterval} ms, maxStalledCount ${worker.opts.maxStalledCount}`);
}
