// The deep dive: a fan-out export as a BullMQ flow, and what the installed BullMQ (6.7.0)
// really does with a parent and its children. The course's chapter does the same with a
// Celery chord (a group of header tasks, then a body that gets their results); this file is
// the BullMQ side, measured by test/flow.test.ts and scripts/flow-checks.ts.
//
//   a bundle       one parent job `export.bundle` (its job id: the bundle id) and one child
//                  `export.part` per chunk of product ids (`<bundle id>.part-<n>`), all on a
//                  queue of their own, `exports.flow`. The parent waits in `waiting-children`
//                  until every child is done, then its processor combines the children's
//                  results (getChildrenValues) into one manifest: parts in order, total rows.
//   the messages   carry ids, not data (lesson 11's rule): a part is { bundle_id, part,
//                  product_ids } and reads its products from MySQL when it runs. Nothing
//                  secret, nor any product text, sits in Redis. The price: a bundle is not a
//                  frozen snapshot, two parts read the table at different instants (lesson 11
//                  freezes the rows into the job's MySQL row at submission; a bundle would
//                  need a row of its own for that, outside this deep dive).
//   the results    a part returns a summary { part, rows, sha256 }, never the rows: the
//                  course's "only a digest goes into the result backend". Where a real export
//                  would write its chunk file, the part hashes the bytes it would write.
//   lineage        read BY ID, from the parent's own dependency keys (getDependencies): which
//                  children it still waits for, which finished and with what value, which
//                  failed and were ignored. A child names its parent (job.parent). Nothing
//                  scans a state list: a scan misses every child whose hash was removed.
//   failures       a child that fails for good leaves the parent waiting FOR EVER unless the
//                  child says otherwise: CHILD_FAILURE_POLICIES names the choices.
//   retention      removeOnComplete / removeOnFail per job; the parent's `processed` hash keeps
//                  each child's value after the child's own hash is gone, until the parent goes.
//
// Where BullMQ's flow differs from Celery's chord (the course's chapter):
//   - No unlock task, no polling, no `celery-chord-unlock-*` key: the script that finishes the
//     last child moves the parent to `wait` in the same atomic step. A stuck flow is a parent
//     that stays in `waiting-children`, not a key that keeps being polled.
//   - No join timeout (result_chord_join_timeout): with the default policy a failed child
//     leaves the parent waiting for ever, with no error anywhere. There is no link_error either;
//     failParentOnFailure fails the parent at once (its processor never runs), and
//     continueParentOnFailure runs the parent's processor at once, with siblings still running:
//     the processor is the errback.
//   - The body's argument is not a list in header order: getChildrenValues() is a hash keyed by
//     the children's Redis keys, in no useful order. The manifest sorts by part number.
//   - Results have no Redis TTL (result_expires): a finished job is removed when ITS retention
//     says so, lazily (`age` is looked at when another job finishes), and a child's value
//     lives on in its parent until the parent is removed.
//   - Lineage is kept by the broker itself (parent key on the child, dependency sets on the
//     parent), where Celery keeps `.children` in the result backend.
import { createHash } from 'node:crypto';
import {
  FlowProducer,
  UnrecoverableError,
  type FlowNestedLeafJob,
  type FlowRootParentJob,
  type Job,
  type JobsOptions,
  type Queue,
  type Worker,
} from 'bullmq';
import type { Redis, RedisOptions } from 'ioredis';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { z } from 'zod';
import {
  brokerConnection,
  openQueue,
  queueConnection,
  RESULT_RETENTION,
  startWorker,
  type JobHandlers,
} from '@tasks-lab/08-broker-worker';
import { READ_PRODUCTS, renderArtifact } from '@tasks-lab/11-mysql-leases';
import { chunksOf } from '@tasks-lab/15-recovery';

/** The flow's queue: parents and children of every bundle live here, apart from the wake-up queues. */
export const FLOW_QUEUE = 'exports.flow';
export const BUNDLE_JOB = 'export.bundle';
export const PART_JOB = 'export.part';
export type FlowJobName = typeof BUNDLE_JOB | typeof PART_JOB;

/** At most this many product ids per part: a message stays small whatever the caller asks. */
export const MAX_PART_SIZE = 1000;
/** At most this many parts per bundle (BullMQ adds a whole flow in one MULTI). */
export const MAX_PARTS = 200;

// ---------------------------------------------------------------------------------
// The messages and the results (strict: a field nobody named is refused, not carried)

/** A bundle id becomes the parent's BullMQ job id: no ':' (BullMQ builds keys with it), not a plain integer. */
const BUNDLE_ID = /^(?!\d+$)[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const partDataSchema = z.strictObject({
  bundle_id: z.string().regex(BUNDLE_ID),
  part: z.number().int().min(1).max(MAX_PARTS),
  product_ids: z.array(z.number().int().positive()).min(1).max(MAX_PART_SIZE),
});
export type PartData = z.infer<typeof partDataSchema>;

export const bundleDataSchema = z.strictObject({
  bundle_id: z.string().regex(BUNDLE_ID),
  /** How many parts the bundle was cut into: the manifest can tell a missing part from a bundle that had fewer. */
  parts: z.number().int().min(1).max(MAX_PARTS),
  product_count: z.number().int().positive(),
});
export type BundleData = z.infer<typeof bundleDataSchema>;

export const partResultSchema = z.strictObject({
  part: z.number().int().min(1),
  rows: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type PartResult = z.infer<typeof partResultSchema>;

export interface BundleManifest {
  bundle_id: string;
  /** Every part that completed, in part order (not in the order they finished). */
  parts: PartResult[];
  total_rows: number;
  /** sha256 over the parts' digests, in part order: one value that says "these parts, in this order". */
  sha256: string;
  /** Parts that failed and whose failure the parent was told about (ignoreDependencyOnFailure). */
  failed_parts: { part: number; reason: string }[];
  /** Parts the bundle was cut into that neither completed nor failed visibly (removeDependencyOnFailure). */
  missing_parts: number[];
  /** Every part completed. */
  complete: boolean;
}

export type FlowJobData = PartData | BundleData;
export type FlowJobResult = PartResult | BundleManifest;
/** A job of the flow queue, parent or part, as BullMQ hands it over (its data not yet checked). */
export type ExportFlowJob = Job<FlowJobData, FlowJobResult, FlowJobName>;
/** The flow queue: parents and parts together, so its jobs carry either message. */
export type ExportFlowQueue = Queue<FlowJobData, FlowJobResult, FlowJobName>;

export const partJobId = (bundleId: string, part: number): string => `${bundleId}.part-${part}`;

/** The part number in a child's job id or Redis key (`...:<bundle id>.part-<n>`), or undefined. */
export function partOf(idOrKey: string): number | undefined {
  const match = /\.part-(\d+)$/.exec(idOrKey);
  return match ? Number(match[1]) : undefined;
}

// ---------------------------------------------------------------------------------
// What happens to the parent when a child fails for good

/**
 * The installed BullMQ's choices, one of which a child must name (CHILD_FAILURE_POLICIES.wait
 * is naming none). Measured on 6.7.0 (scripts/flow-checks.ts, flow-child-failure-explicit):
 *
 *   wait      BullMQ's default: the failed child stays in the parent's pending set, the parent
 *             stays in waiting-children FOR EVER, nothing reports it. Celery's stuck chord.
 *   fail      the parent fails at once ("child <key> failed") without its processor running
 *             (it goes to `wait` marked to fail: the next worker of its queue fails it);
 *             siblings still running finish on their own.
 *   ignore    the failure is recorded on the parent (getIgnoredChildrenFailures) and the parent
 *             runs once the others are done: it completes, the failure visible in its manifest.
 *   remove    the child is dropped from the parent's dependencies: the parent completes, and
 *             its lineage no longer lists that child at all (the child still names the parent).
 *   continue  the parent's processor runs AT ONCE, siblings possibly still running; the failure
 *             is recorded as with ignore. The processor decides (here: it gives the bundle up);
 *             siblings that finish later still leave their values in the (failed) parent.
 */
export const CHILD_FAILURE_POLICIES = {
  wait: {},
  fail: { failParentOnFailure: true },
  ignore: { ignoreDependencyOnFailure: true },
  remove: { removeDependencyOnFailure: true },
  continue: { continueParentOnFailure: true },
} as const satisfies Record<string, ChildFailureOptions>;
export type ChildFailurePolicy = keyof typeof CHILD_FAILURE_POLICIES;
export type ChildFailureOptions = Pick<
  JobsOptions,
  'failParentOnFailure' | 'ignoreDependencyOnFailure' | 'removeDependencyOnFailure' | 'continueParentOnFailure'
>;
export const CHILD_FAILURE_POLICY_NAMES = Object.keys(CHILD_FAILURE_POLICIES) as ChildFailurePolicy[];

/**
 * A bundle's own default: fail. A bundle missing a part is worth nothing, and the BullMQ
 * default (wait) would leave the parent in waiting-children with no error and no end.
 */
export const DEFAULT_CHILD_FAILURE_POLICY: ChildFailurePolicy = 'fail';

// ---------------------------------------------------------------------------------
// Retention

/**
 * How long finished jobs stay (lesson 08's: completed an hour, failed a day), for the parent
 * and each child unless the caller says otherwise. A child's VALUE outlives its hash: it is
 * copied into the parent's `processed` hash when the child completes, and stays there until
 * the parent is removed. So a child may go much sooner than its parent (removeOnComplete:
 * true) without the manifest or the lineage losing its result, only its state and its data.
 * `age` is in seconds and looked at lazily, when another job of the queue finishes.
 */
export const FLOW_RETENTION = {
  bundle: RESULT_RETENTION,
  part: RESULT_RETENTION,
} as const satisfies Record<'bundle' | 'part', Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'>>;

/** Children retention that drops a completed child at once: its value lives on in the parent only. */
export const DROP_COMPLETED_PARTS = { removeOnComplete: true } as const satisfies JobsOptions;

// ---------------------------------------------------------------------------------
// Adding a bundle

/** A flow node's options the caller may set: the ids and the parent link are addExportFlow's. */
export type FlowNodeOptions = Omit<JobsOptions, 'jobId' | 'parent' | 'deduplication' | 'repeatJobKey'>;

export interface ExportFlowRequest {
  bundleId: string;
  productIds: readonly number[];
  /** Product ids per part (the last part may be shorter). */
  partSize: number;
  /** @defaultValue FLOW_QUEUE */
  queueName?: string;
  /** One of CHILD_FAILURE_POLICIES, applied to every part. @defaultValue the `fail` policy */
  failurePolicy?: ChildFailureOptions;
  /** Each part's extra options (retention, delay...), given its part number; applied last. */
  childOptions?: FlowNodeOptions | ((part: number) => FlowNodeOptions);
  /** The bundle's extra options (its retention). */
  bundleOptions?: FlowNodeOptions;
}

export interface AddedExportFlow {
  parentId: string;
  /** In part order. */
  childIds: string[];
}

/** A bundle as FlowProducer.add takes it, its messages typed (BullMQ's own FlowJob types `data` as any). */
export type ExportFlowPlan = FlowRootParentJob & {
  name: typeof BUNDLE_JOB;
  data: BundleData;
  children: (FlowNestedLeafJob & { name: typeof PART_JOB; data: PartData })[];
};

/** The flow a request describes, checked; nothing is sent. */
export function planExportFlow(request: ExportFlowRequest): ExportFlowPlan {
  const queueName = request.queueName ?? FLOW_QUEUE;
  if (!BUNDLE_ID.test(request.bundleId))
    throw new RangeError(
      `bundle id ${JSON.stringify(request.bundleId.slice(0, 80))} must be 1 to 64 letters, digits, '_' or '-', and not a plain number`,
    );
  if (!Number.isInteger(request.partSize) || request.partSize < 1 || request.partSize > MAX_PART_SIZE) {
    throw new RangeError(`partSize must be a whole number from 1 to ${MAX_PART_SIZE}, got ${request.partSize}`);
  }
  const chunks = chunksOf(request.productIds, request.partSize);
  if (chunks.length === 0) throw new RangeError('a bundle needs at least one product id');
  if (chunks.length > MAX_PARTS)
    throw new RangeError(`${chunks.length} parts is more than ${MAX_PARTS}: use a larger partSize`);
  const policy = request.failurePolicy ?? CHILD_FAILURE_POLICIES[DEFAULT_CHILD_FAILURE_POLICY];
  const children: ExportFlowPlan['children'] = chunks.map((productIds, index) => {
    const part = index + 1;
    const extra = typeof request.childOptions === 'function' ? request.childOptions(part) : request.childOptions;
    const data: PartData = partDataSchema.parse({ bundle_id: request.bundleId, part, product_ids: productIds });
    // attempts 1: a part that cannot read its products will not read them on a second try.
    return {
      name: PART_JOB,
      queueName,
      data,
      opts: { attempts: 1, ...FLOW_RETENTION.part, ...policy, ...extra, jobId: partJobId(request.bundleId, part) },
    };
  });
  const data: BundleData = bundleDataSchema.parse({
    bundle_id: request.bundleId,
    parts: chunks.length,
    product_count: request.productIds.length,
  });
  return {
    name: BUNDLE_JOB,
    queueName,
    data,
    opts: { attempts: 1, ...FLOW_RETENTION.bundle, ...request.bundleOptions, jobId: request.bundleId },
    children,
  };
}

/**
 * Adds a bundle: the parent and every part in one atomic step (BullMQ's MULTI), the parent in
 * waiting-children. A bundle id is used once: BullMQ silently keeps an existing job whose id
 * is added again.
 */
export async function addExportFlow(flowProducer: FlowProducer, request: ExportFlowRequest): Promise<AddedExportFlow> {
  const node = await flowProducer.add(planExportFlow(request));
  return { parentId: String(node.job.id), childIds: (node.children ?? []).map((child) => String(child.job.id)) };
}

/** A flow producer under `prefix` (the prefix must be the workers' and the queue's). Close it. */
export async function openFlowProducer(
  prefix: string,
  connection: RedisOptions = brokerConnection(),
): Promise<FlowProducer> {
  // Fail fast: an add with Redis down rejects at once instead of waiting in ioredis's offline queue.
  const producer = new FlowProducer({
    connection: queueConnection({ ...connection, enableOfflineQueue: false }),
    prefix,
  });
  producer.on('error', () => {}); // reported by the failed call; an unheard error event would crash the process
  try {
    await producer.waitUntilReady();
    return producer;
  } catch (err) {
    await producer.close().catch(() => {});
    throw err;
  }
}

/** The flow queue under `prefix`, for reading (lineage, states) and obliterating. Close it. */
export function openFlowQueue(
  prefix: string,
  queueName: string = FLOW_QUEUE,
  connection?: RedisOptions,
): Promise<ExportFlowQueue> {
  return openQueue<FlowJobData, FlowJobResult, FlowJobName>({ prefix, queueName }, { connection });
}

// ---------------------------------------------------------------------------------
// The processors

/** A part's work: `data` is the checked message; `job` is BullMQ's, for its id, progress or children. */
export type PartProcessor = (data: PartData, job: ExportFlowJob) => Promise<PartResult>;
/** A bundle's work, run once its parts are done (or at once under `continue`). */
export type BundleProcessor = (data: BundleData, job: ExportFlowJob) => Promise<BundleManifest>;

/** The same row shape as lesson 11's snapshot: what a part's bytes are made of. */
function toRow(row: RowDataPacket) {
  // BOOLEAN is TINYINT(1): it arrives as 0 or 1.
  return {
    id: Number(row.id),
    name: String(row.name),
    description: String(row.description),
    is_active: Boolean(Number(row.is_active)),
    price_cents: Number(row.price_cents),
  };
}

const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

/**
 * The real part: reads its products (lesson 11's READ_PRODUCTS, no lock), renders them as
 * lesson 11's artifact would and returns the digest. A product that does not exist fails the
 * part for good (UnrecoverableError): no retry would make it appear.
 */
export function exportPart(pool: Pool): PartProcessor {
  return async (data) => {
    const [found] = await pool.query<RowDataPacket[]>(READ_PRODUCTS, [data.product_ids]);
    const byId = new Map(found.map((row) => [Number(row.id), toRow(row)]));
    const missing = data.product_ids.filter((id) => !byId.has(id));
    if (missing.length > 0) throw new UnrecoverableError(`no product with id ${missing.join(', ')}`);
    const rows = data.product_ids.map((id) => byId.get(id)!);
    return { part: data.part, rows: rows.length, sha256: sha256(renderArtifact(rows)) };
  };
}

/**
 * The real bundle: combines what its children left in it. Runs when BullMQ moves the parent
 * out of waiting-children: every part done (completed, or failed under ignore/remove), or at
 * once after a failure under `continue`. In that last case parts may still be pending: the
 * bundle is given up then and there (UnrecoverableError naming the failure), the errback the
 * course attaches to its chord.
 */
export const combineParts: BundleProcessor = async (data, job) => {
  const values = await job.getChildrenValues<unknown>();
  const failures = await job.getIgnoredChildrenFailures();
  const { unprocessed = 0 } = await job.getDependenciesCount({ unprocessed: true });
  const failed = Object.entries(failures)
    .map(([key, reason]) => ({ part: partOf(key) ?? 0, reason: String(reason) }))
    .sort((a, b) => a.part - b.part);
  if (unprocessed > 0) {
    const why = failed.map((f) => `part ${f.part} (${f.reason})`).join(', ') || 'a part';
    throw new UnrecoverableError(
      `bundle ${data.bundle_id} given up: ${why} failed while ${unprocessed} part(s) were still pending`,
    );
  }
  // Sorted by part: the hash's order is no order (measured: not even the order the parts finished in).
  const parts = Object.values(values)
    .map((value) => partResultSchema.parse(value))
    .sort((a, b) => a.part - b.part);
  return manifestOf(data, parts, failed);
};

/** The manifest of `parts` (already in part order) and the visible failures. */
export function manifestOf(
  data: BundleData,
  parts: PartResult[],
  failed: BundleManifest['failed_parts'],
): BundleManifest {
  const seen = new Set([...parts.map((p) => p.part), ...failed.map((f) => f.part)]);
  const missing = Array.from({ length: data.parts }, (_, i) => i + 1).filter((part) => !seen.has(part));
  return {
    bundle_id: data.bundle_id,
    parts,
    total_rows: parts.reduce((sum, p) => sum + p.rows, 0),
    sha256: sha256(parts.map((p) => p.sha256).join('\n')),
    failed_parts: failed,
    missing_parts: missing,
    complete: failed.length === 0 && missing.length === 0 && parts.length === data.parts,
  };
}

export interface StartFlowWorkersOptions {
  prefix: string;
  /** @defaultValue FLOW_QUEUE */
  queueName?: string;
  /** @defaultValue brokerConnection() */
  connection?: RedisOptions;
  /** The products' database, for the real part (exportPart). Needed unless processPart is given. */
  pool?: Pool;
  /** @defaultValue exportPart(pool) */
  processPart?: PartProcessor;
  /** @defaultValue combineParts */
  processBundle?: BundleProcessor;
  /**
   * Jobs at once. Parents and parts share the queue: a parent runs only when a slot is free,
   * so with fewer slots than parts a `continue` parent waits behind the parts. @defaultValue 8
   */
  concurrency?: number;
  onError?: (err: Error) => void;
}

export interface RunningFlowWorkers {
  worker: Worker<FlowJobData, FlowJobResult, FlowJobName>;
  /** Waits for the running jobs, then closes (idempotent, as BullMQ's close is). */
  close(): Promise<void>;
}

/**
 * One worker on the flow queue that runs both job names (lesson 08's startWorker: an unknown
 * name is refused, not retried). The data is checked on the way in: a part that is not
 * { bundle_id, part, product_ids } is refused for good.
 */
export function startFlowWorkers(options: StartFlowWorkersOptions): RunningFlowWorkers {
  const processPart = options.processPart ?? (options.pool ? exportPart(options.pool) : undefined);
  if (!processPart) throw new TypeError('startFlowWorkers needs a pool (for exportPart) or a processPart');
  const processBundle = options.processBundle ?? combineParts;
  const handlers: JobHandlers<FlowJobData, FlowJobResult, FlowJobName> = {
    [PART_JOB]: async (job) => processPart(checked(partDataSchema, job), job),
    [BUNDLE_JOB]: async (job) => processBundle(checked(bundleDataSchema, job), job),
  };
  const worker = startWorker({ prefix: options.prefix, queueName: options.queueName ?? FLOW_QUEUE }, handlers, {
    connection: options.connection,
    concurrency: options.concurrency ?? 8,
    // BullMQ's own timings: a part is short, nothing here is about stalls.
    lockDurationMs: 30_000,
    stalledIntervalMs: 30_000,
    maxStalledCount: 1,
    // Connection trouble is printed (lesson 08's default): BullMQ keeps reconnecting and never throws it.
    onError: options.onError,
  });
  return { worker, close: () => worker.close() };
}

function checked<T>(schema: z.ZodType<T>, job: ExportFlowJob): T {
  const parsed = schema.safeParse(job.data);
  if (!parsed.success)
    throw new UnrecoverableError(
      `job ${job.id} (${job.name}) carries data the contract refuses: ${parsed.error.issues.map((i) => i.path.join('.') || i.message).join(', ')}`,
    );
  return parsed.data;
}

// ---------------------------------------------------------------------------------
// Lineage, by id

/** Which of the parent's dependency keys names the child. */
export type ChildDependency = 'processed' | 'pending' | 'failed' | 'ignored';

export interface LineageChild {
  id: string;
  part?: number;
  dependency: ChildDependency;
  /** The child's own state; 'unknown' once its hash is gone (its retention removed it). */
  state: string;
  /** The value the parent holds for it (kept after the child's hash is gone). */
  result?: unknown;
  failedReason?: string;
  /** The child's own hash still exists. */
  retained: boolean;
}

export interface Lineage {
  parent: { id: string; state: string; result?: unknown; failedReason?: string };
  /** In part order. */
  children: LineageChild[];
}

/**
 * The bundle's tree, from its id alone: the parent's own dependency keys say which children
 * it has (pending, completed with their values, failed and failing it, failed and ignored),
 * then each child is read by id. Undefined when the parent is gone: the lineage lives exactly
 * as long as the parent's retention. A child removed by a `remove` policy is not listed: the
 * parent forgot it (the child, while it lasts, still names the parent: readParentOf).
 * Every key is read whole (no paging): fine for MAX_PARTS children.
 */
export async function readLineage(queue: ExportFlowQueue, parentId: string): Promise<Lineage | undefined> {
  const parent = await queue.getJob(parentId);
  if (!parent) return undefined;
  const parentState = await queue.getJobState(parentId);
  const deps = await parent.getDependencies();
  const listed: { key: string; dependency: ChildDependency; result?: unknown; failedReason?: string }[] = [
    ...Object.entries(deps.processed ?? {}).map(([key, result]) => ({ key, dependency: 'processed' as const, result })),
    ...(deps.unprocessed ?? []).map((key) => ({ key, dependency: 'pending' as const })),
    ...(deps.failed ?? []).map((key) => ({ key, dependency: 'failed' as const })),
    ...Object.entries(deps.ignored ?? {}).map(([key, reason]) => ({
      key,
      dependency: 'ignored' as const,
      failedReason: String(reason),
    })),
  ];
  const children = await Promise.all(listed.map((entry) => readChild(queue, entry)));
  children.sort((a, b) => (a.part ?? 0) - (b.part ?? 0) || a.id.localeCompare(b.id));
  return {
    parent: {
      id: parentId,
      state: parentState,
      result: parent.returnvalue ?? undefined,
      failedReason: parent.failedReason || undefined,
    },
    children,
  };
}

async function readChild(
  queue: ExportFlowQueue,
  entry: { key: string; dependency: ChildDependency; result?: unknown; failedReason?: string },
): Promise<LineageChild> {
  const own = `${queue.qualifiedName}:`;
  // A child on another queue (not one addExportFlow makes) is listed by its key, state unknown.
  const id = entry.key.startsWith(own) ? entry.key.slice(own.length) : entry.key;
  const job = entry.key.startsWith(own) ? await queue.getJob(id) : undefined;
  const state = job ? await queue.getJobState(id) : 'unknown';
  const failedReason = entry.failedReason ?? (job?.failedReason || undefined);
  return {
    id,
    part: partOf(id),
    dependency: entry.dependency,
    state,
    ...(entry.result !== undefined ? { result: entry.result } : {}),
    ...(failedReason ? { failedReason } : {}),
    retained: job !== undefined,
  };
}

/** The parent a child names (job.parent, or its parentKey), read by the child's id; undefined once the child's hash is gone. */
export async function readParentOf(queue: ExportFlowQueue, childId: string): Promise<string | undefined> {
  const job = await queue.getJob(childId);
  if (!job) return undefined;
  if (job.parent?.id) return job.parent.id;
  return job.parentKey ? job.parentKey.slice(job.parentKey.lastIndexOf(':') + 1) : undefined;
}

// ---------------------------------------------------------------------------------
// Key counts (the chapter's monitoring: a key count that keeps growing is a flow that never ends)

const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/** Keys matching a glob pattern, counted with SCAN (never KEYS: it blocks Redis while it walks). */
export async function countKeys(redis: Redis, pattern: string): Promise<number> {
  let cursor = '0';
  let count = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    count += keys.length;
  } while (cursor !== '0');
  return count;
}

/** Every key under a BullMQ prefix (queues, jobs, events). */
export const countPrefixKeys = (redis: Redis, prefix: string): Promise<number> =>
  countKeys(redis, `${escapeGlob(prefix)}:*`);

/** The keys one bundle holds: the parent's hash and its dependency keys, and each part's hash. */
export async function countBundleKeys(
  redis: Redis,
  prefix: string,
  bundleId: string,
  queueName: string = FLOW_QUEUE,
): Promise<number> {
  const base = `${escapeGlob(prefix)}:${escapeGlob(queueName)}:${escapeGlob(bundleId)}`;
  // `<bundle>` itself, then `<bundle>:processed`... and `<bundle>.part-<n>`: not `<bundle>x...` of another bundle.
  return (await countKeys(redis, base)) + (await countKeys(redis, `${base}[.:]*`));
}
