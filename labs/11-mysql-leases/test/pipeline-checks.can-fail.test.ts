// Every pipeline check must fail when a real part is broken: a worker whose finish never
// lands (a fault point), a wake-up that carries the snapshot, an API that answers GET from
// its own memory or from Redis, a submission that ignores the Idempotency-Key, a worker
// whose claim has no conditions. Each case runs the check's real scenario on a fresh
// database of this file's own.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe } from 'vitest';
import { faultRule } from '@tasks-lab/lab-kit';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { EXPORT_JOB_NAME, enqueue } from '@tasks-lab/08-broker-worker';
import { freshDatabase, type FreshDatabase } from '../src/scratch-databases.ts';
import { readJob, submitSnapshot } from '../src/leases.ts';
import { WAKE_UP_JOB_OPTIONS, type WakeUpMessage } from '../src/queue.ts';
import { buildPipelineChecks, type PipelineCheckDeps } from '../scripts/pipeline-checks.ts';
import type { PipelineParts } from '../scripts/pipeline-scenarios.ts';
import { memoryBackedApp } from './fixtures/memory-backed-app.ts';
import { redisBackedApp } from './fixtures/redis-backed-app.ts';

const STEALING_WORKER = fileURLToPath(new URL('./fixtures/worker-stealing-claim.ts', import.meta.url));

let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase('pipefail');
}, 60_000);
afterAll(() => db?.drop());

const broken = (parts: Partial<PipelineParts>) => (): PipelineCheckDeps => ({
  database: db.name,
  pipelineParts: parts,
});

/** Lesson 08's fat message: the snapshot travels in Redis beside the id. */
const wakeWithSnapshot: PipelineParts['wake'] = async (queue, jobId, pool) => {
  const row = await readJob(pool, jobId);
  const fat = { job_id: jobId, products: row?.snapshot ?? [] } as unknown as WakeUpMessage;
  return enqueue(queue, EXPORT_JOB_NAME, fat, { jobId: `wake-${randomUUID()}`, jobOptions: WAKE_UP_JOB_OPTIONS });
};

/** A submission that drops the Idempotency-Key: every retry inserts a new job. */
const submitIgnoringKey: PipelineParts['submit'] = (pool, productIds, options = {}) =>
  submitSnapshot(pool, productIds, { deadlineMs: options.deadlineMs });

describe('pipeline checks can fail', () => {
  const suite = canFailSuite(buildPipelineChecks);

  suite.breaks(
    'http-submit-succeeds',
    "the worker's finish never lands (before-finish throws on every delivery)",
    broken({ workerFaults: faultRule('before-finish', 'throw', 'always') }),
    {
      observed: /running/,
    },
  );
  suite.breaks(
    'worker-gets-only-job-id',
    'the wake-up carries the snapshot beside the job id',
    broken({ wake: wakeWithSnapshot }),
    { observed: /products/ },
  );
  suite.breaks(
    'redis-loss-changes-nothing',
    'the API answers GET from BullMQ instead of the table',
    broken({ createApp: redisBackedApp }),
    { observed: /after: GET 404/ },
  );
  suite.breaks(
    'get-reads-the-table',
    'the API answers GET from a Map in its own process',
    broken({ createApp: (options) => memoryBackedApp(options) }),
    {
      observed: /after a restart 404/,
    },
  );
  suite.breaks(
    'idempotent-submission',
    'the submission ignores the Idempotency-Key',
    broken({ submit: submitIgnoringKey }),
    { observed: /DIFFERENT job/ },
  );
  suite.breaks(
    'completed-means-delivered',
    "the worker's claim is a plain UPDATE by id, with no conditions",
    broken({ workerScript: STEALING_WORKER }),
    {
      observed: /claimed":true/,
    },
  );
  suite.coversEveryCheck();
});
