// The experiments behind the flow checks (the deep dive: a fan-out export as a BullMQ flow).
// Each one runs on a fresh database of its own (the parts read real product rows), a scratch
// BullMQ prefix (lab 13's scratchQueuePrefix, plus the flow queue obliterated at the end), a
// real worker on the flow queue and a real FlowProducer; it gathers evidence, and
// scripts/flow-checks.ts judges it.
//
//   parentAfterChildren  3 parts that finish in REVERSE order (part 3 first): when does the
//                        parent run, and does its manifest put the parts back in order?
//   lineageById          a bundle caught half way: a part completed and kept, a part completed
//                        and removed, a part failed and ignored, a part still delayed; plus
//                        another bundle beside it. What does the lineage say, from ids alone?
//   childFailure         one bundle per failure policy, each with a part that fails for good
//                        (a product that does not exist) while its siblings take their time.
//   retention            the same bundle three times: parts kept, parts dropped on completion,
//                        and parts and parent dropped: which keys remain, what the parent still knows.
//
// The parts a check may break (FlowParts) are passed in; the can-fail tests run the same
// experiments with broken ones (test/flow-checks.can-fail.test.ts).
import type { Pool } from 'mysql2/promise';
import { Redis } from 'ioredis';
import type { FlowProducer } from 'bullmq';
import { sleep, withResources, type Resources } from '@tasks-lab/lab-kit';
import { brokerConnection } from '@tasks-lab/08-broker-worker';
import { scratchQueuePrefix } from '@tasks-lab/13-admission';
import { freshDatabase } from '../src/database.ts';
import {
  addExportFlow,
  CHILD_FAILURE_POLICIES,
  CHILD_FAILURE_POLICY_NAMES,
  combineParts,
  countBundleKeys,
  countPrefixKeys,
  DROP_COMPLETED_PARTS,
  exportPart,
  FLOW_QUEUE,
  openFlowProducer,
  openFlowQueue,
  partJobId,
  readLineage,
  readParentOf,
  startFlowWorkers,
  type BundleManifest,
  type BundleProcessor,
  type ChildFailureOptions,
  type ChildFailurePolicy,
  type ExportFlowJob,
  type ExportFlowQueue,
  type FlowNodeOptions,
  type Lineage,
  type PartProcessor,
} from '../src/flow.ts';
import { QUEUE_PREFIX } from '../src/options.ts';

/** The parts a check may break; the lab's own are used otherwise. */
export interface FlowParts {
  /** How a bundle is added (a FlowProducer flow: the parent waits for its parts). */
  addExportFlow: typeof addExportFlow;
  /** The parent's processor (combineParts: every part's value, in part order). */
  processBundle: BundleProcessor;
  /** The lineage query, by the parent's id. */
  readLineage: typeof readLineage;
  /** Each policy's child options. */
  policies: Record<ChildFailurePolicy, ChildFailureOptions>;
  /** The retention under test: parts dropped when they complete; a bundle dropped when it completes. */
  retention: { droppedParts: FlowNodeOptions; droppedBundle: FlowNodeOptions };
}

export const REAL_FLOW_PARTS: FlowParts = {
  addExportFlow,
  processBundle: combineParts,
  readLineage,
  policies: CHILD_FAILURE_POLICIES,
  retention: { droppedParts: DROP_COMPLETED_PARTS, droppedBundle: { removeOnComplete: true } },
};

export interface FlowContext {
  parts: FlowParts;
}

/** The products the migration seeds (lesson 11's five). */
export const PRODUCTS = [1, 2, 3, 4, 5];
/** A product id no migration seeds: the part that holds it fails for good. */
export const MISSING_PRODUCT = 999_999;
/** Parts of 2: products 1-5 make 3 parts (2, 2 and 1 rows). */
export const PART_SIZE = 2;
/** How long the sound parts take in the failure experiment: the failing part is done long before. */
export const SLOW_PART_MS = 400;
/** How long a parent is watched in waiting-children after its other parts completed. */
export const WAIT_WINDOW_MS = 1000;
/** A wait that bounds every experiment: a flow that has not moved by then will not. */
const SETTLE_MS = 8000;

// ---------------------------------------------------------------------------------
// The pieces every experiment uses

interface FlowExperiment {
  pool: Pool;
  prefix: string;
  producer: FlowProducer;
  queue: ExportFlowQueue;
  redis: Redis;
}

/** A fresh database, a scratch prefix (the flow queue obliterated at the end), a producer, the queue, a Redis client. */
async function openExperiment(res: Resources, label: string): Promise<FlowExperiment> {
  const db = res.add(await freshDatabase(label), (d) => d.drop());
  // Registered before anything runs on it: the queues go after the worker is closed.
  const prefix = scratchQueuePrefix(res, QUEUE_PREFIX);
  res.defer(async () => {
    const queue = await openFlowQueue(prefix);
    try {
      await queue.obliterate({ force: true });
    } finally {
      await queue.close();
    }
  });
  const redis = res.add(new Redis(brokerConnection()), (r) => r.quit());
  const producer = res.add(await openFlowProducer(prefix), (p) => p.close());
  const queue = res.add(await openFlowQueue(prefix), (q) => q.close());
  return { pool: db.pool, prefix, producer, queue, redis };
}

function startWorkers(
  ctx: FlowContext,
  res: Resources,
  x: FlowExperiment,
  processPart: PartProcessor,
  concurrency = 8,
): void {
  res.add(
    startFlowWorkers({ prefix: x.prefix, processPart, processBundle: ctx.parts.processBundle, concurrency }),
    (w) => w.close(),
  );
}

/** How long a part of parentAfterChildren waits for the next part to finish, at most. */
const PART_ORDER_BOUND_MS = 5000;

const bundleIdOf = (label: string) =>
  `${label}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

/** A job's state, polled until it is one of `states` or the time runs out: the last state seen either way. */
async function settle(
  queue: ExportFlowQueue,
  id: string,
  states: readonly string[],
  signal: AbortSignal,
  ms = SETTLE_MS,
): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const state = await queue.getJobState(id);
    if (states.includes(state) || Date.now() > deadline) return state;
    await sleep(50, signal);
  }
}

/** Polls `ready` until it says yes, or the time runs out (then the evidence shows what was reached). */
async function until(ready: () => Promise<boolean>, signal: AbortSignal, ms = SETTLE_MS): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await ready()) return true;
    if (Date.now() > deadline) return false;
    await sleep(50, signal);
  }
}

export interface JobView {
  id: string;
  state: string;
  processedOn?: number;
  finishedOn?: number;
  failedReason?: string;
  returnvalue?: unknown;
}

async function viewOf(queue: ExportFlowQueue, id: string): Promise<JobView> {
  const job: ExportFlowJob | undefined = await queue.getJob(id);
  const state = await queue.getJobState(id);
  if (!job) return { id, state };
  return {
    id,
    state,
    ...(job.processedOn ? { processedOn: job.processedOn } : {}),
    ...(job.finishedOn ? { finishedOn: job.finishedOn } : {}),
    ...(job.failedReason ? { failedReason: job.failedReason } : {}),
    ...(job.returnvalue !== null && job.returnvalue !== undefined ? { returnvalue: job.returnvalue } : {}),
  };
}

const asManifest = (value: unknown): BundleManifest | undefined =>
  value && typeof value === 'object' && Array.isArray((value as BundleManifest).parts)
    ? (value as BundleManifest)
    : undefined;

// ---------------------------------------------------------------------------------
// 1. The parent runs after every part, and puts them back in order

export interface ParentAfterChildrenEvidence {
  productCount: number;
  /** Rows each part should hold, in part order. */
  expectedRows: number[];
  parentId: string;
  /** The parent's state right after the add, before any part finished. */
  stateAfterAdd: string;
  parent: JobView;
  manifest?: BundleManifest;
  /** In part order. */
  children: (JobView & { part: number })[];
  /** Instants are relative to the add. */
  addedAt: number;
}

export async function parentAfterChildren(ctx: FlowContext, signal: AbortSignal): Promise<ParentAfterChildrenEvidence> {
  return withResources(signal, async (res) => {
    const x = await openExperiment(res, 'flowparent');
    const parts = Math.ceil(PRODUCTS.length / PART_SIZE);
    const real = exportPart(x.pool);
    // Part n runs once BullMQ has recorded part n + 1 completed (its finishedOn written before
    // part n even starts): part 3 finishes first, part 1 last, whatever order the worker fetched
    // them in. (A fixed delay per part would rely on the three being fetched within that delay
    // of each other, which a loaded machine does not promise; ordering on the processor's return
    // could leave two parts with the same finishedOn.) A manifest in the order the parts
    // finished, not in part order, shows. Concurrency 8 lets all three wait at once; the bound
    // keeps a part that never ran from holding the others.
    const bundleId = bundleIdOf('order');
    startWorkers(ctx, res, x, async (data, job) => {
      if (data.part < parts)
        await settle(x.queue, partJobId(bundleId, data.part + 1), ['completed'], res.signal, PART_ORDER_BOUND_MS);
      return real(data, job);
    });
    const addedAt = Date.now();
    const added = await ctx.parts.addExportFlow(x.producer, { bundleId, productIds: PRODUCTS, partSize: PART_SIZE });
    const stateAfterAdd = await x.queue.getJobState(added.parentId);
    await settle(x.queue, added.parentId, ['completed', 'failed'], res.signal);
    const childIds = Array.from({ length: parts }, (_, i) => partJobId(bundleId, i + 1));
    await Promise.all(childIds.map((id) => settle(x.queue, id, ['completed', 'failed'], res.signal, 2000)));
    const parent = await viewOf(x.queue, added.parentId);
    const children = await Promise.all(
      childIds.map(async (id, i) => ({ ...(await viewOf(x.queue, id)), part: i + 1 })),
    );
    return {
      productCount: PRODUCTS.length,
      expectedRows: Array.from({ length: parts }, (_, i) => Math.min(PART_SIZE, PRODUCTS.length - i * PART_SIZE)),
      parentId: added.parentId,
      stateAfterAdd,
      parent,
      manifest: asManifest(parent.returnvalue),
      children,
      addedAt,
    };
  });
}

// ---------------------------------------------------------------------------------
// 2. Lineage by id, on a bundle caught half way

/** What each part of the lineage bundle is made to do. */
export const LINEAGE_PARTS = [
  { part: 1, product: 1, fate: 'completed, kept' },
  { part: 2, product: 2, fate: 'completed, its hash removed (removeOnComplete)' },
  { part: 3, product: MISSING_PRODUCT, fate: 'failed for good, ignored by the parent' },
  { part: 4, product: 3, fate: 'delayed a minute: still pending' },
] as const;

export interface LineageEvidence {
  parentId: string;
  /** The bundle's part ids, in part order. */
  childIds: string[];
  /** Another bundle's ids on the same queue: none may appear. */
  otherIds: string[];
  /** Whether the bundle reached its half-way point (2 parts processed, 1 ignored) in time. */
  reached: boolean;
  lineage: Lineage | undefined | { error: string };
  /** Each part's parent, read from the part's id alone. */
  parentOf: Record<string, string | undefined>;
}

export async function lineageById(ctx: FlowContext, signal: AbortSignal): Promise<LineageEvidence> {
  return withResources(signal, async (res) => {
    const x = await openExperiment(res, 'flowlineage');
    startWorkers(ctx, res, x, exportPart(x.pool));
    const other = await ctx.parts.addExportFlow(x.producer, {
      bundleId: bundleIdOf('other'),
      productIds: [4, 5],
      partSize: 1,
    });
    const bundleId = bundleIdOf('lineage');
    const added = await ctx.parts.addExportFlow(x.producer, {
      bundleId,
      productIds: LINEAGE_PARTS.map((p) => p.product),
      partSize: 1,
      failurePolicy: CHILD_FAILURE_POLICIES.ignore,
      childOptions: (part) => (part === 2 ? DROP_COMPLETED_PARTS : part === 4 ? { delay: 60_000 } : {}),
    });
    await settle(x.queue, other.parentId, ['completed', 'failed'], res.signal);
    const reached = await until(async () => {
      const counts = await (await x.queue.getJob(added.parentId))?.getDependenciesCount();
      return counts?.processed === 2 && counts.ignored === 1;
    }, res.signal);
    const lineage = await ctx.parts
      .readLineage(x.queue, added.parentId)
      .catch((err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }));
    const parentOf: Record<string, string | undefined> = {};
    for (const id of added.childIds) parentOf[id] = await readParentOf(x.queue, id);
    return {
      parentId: added.parentId,
      childIds: added.childIds,
      otherIds: [other.parentId, ...other.childIds],
      reached,
      lineage,
      parentOf,
    };
  });
}

// ---------------------------------------------------------------------------------
// 3. A part that fails for good, under each policy

export interface PolicyRun {
  policy: ChildFailurePolicy;
  options: ChildFailureOptions | undefined;
  parentId: string;
  failingChildId: string;
  parent: JobView;
  manifest?: BundleManifest;
  failingChild: JobView;
  /** When the sound parts of this bundle had all completed (the latest finishedOn), if they had. */
  siblingsDoneAt?: number;
  /** The lineage's children: id and which dependency key names them. */
  lineage: { id: string; dependency: string; state: string }[];
}

export interface ChildFailureEvidence {
  missingProduct: number;
  windowMs: number;
  /** When the states were read: at least windowMs after every sound part completed. */
  readAt: number;
  runs: PolicyRun[];
}

export async function childFailure(ctx: FlowContext, signal: AbortSignal): Promise<ChildFailureEvidence> {
  return withResources(signal, async (res) => {
    const x = await openExperiment(res, 'flowpolicy');
    const real = exportPart(x.pool);
    // The sound parts take their time; the failing one fails at once (its product is missing):
    // a `continue` parent runs while its siblings are still running.
    startWorkers(
      ctx,
      res,
      x,
      async (data, job) => {
        if (!data.product_ids.includes(MISSING_PRODUCT)) await sleep(SLOW_PART_MS);
        return real(data, job);
      },
      32,
    );
    // Parts: [1, 2], [MISSING, 3], [4]: part 2 fails.
    const productIds = [1, 2, MISSING_PRODUCT, 3, 4];
    const added = await Promise.all(
      CHILD_FAILURE_POLICY_NAMES.map(async (policy) => ({
        policy,
        flow: await ctx.parts.addExportFlow(x.producer, {
          bundleId: bundleIdOf(policy),
          productIds,
          partSize: PART_SIZE,
          failurePolicy: ctx.parts.policies[policy],
        }),
      })),
    );
    const sound = added.flatMap(({ flow }) => [flow.childIds[0]!, flow.childIds[2]!]);
    await until(
      async () =>
        (await Promise.all(sound.map((id) => x.queue.getJobState(id)))).every(
          (s) => s === 'completed' || s === 'failed',
        ),
      res.signal,
    );
    // Every parent that is going to move has moved within milliseconds; a `wait` parent is watched a while longer.
    await sleep(WAIT_WINDOW_MS, res.signal);
    const readAt = Date.now();
    const runs: PolicyRun[] = [];
    for (const { policy, flow } of added) {
      const parent = await viewOf(x.queue, flow.parentId);
      const failingChild = await viewOf(x.queue, flow.childIds[1]!);
      const siblings = await Promise.all([flow.childIds[0]!, flow.childIds[2]!].map((id) => viewOf(x.queue, id)));
      const done = siblings.every((s) => s.state === 'completed' && s.finishedOn !== undefined);
      const lineage = await readLineage(x.queue, flow.parentId);
      runs.push({
        policy,
        options: ctx.parts.policies[policy],
        parentId: flow.parentId,
        failingChildId: flow.childIds[1]!,
        parent,
        manifest: asManifest(parent.returnvalue),
        failingChild,
        ...(done ? { siblingsDoneAt: Math.max(...siblings.map((s) => s.finishedOn!)) } : {}),
        lineage: (lineage?.children ?? []).map((c) => ({ id: c.id, dependency: c.dependency, state: c.state })),
      });
    }
    return { missingProduct: MISSING_PRODUCT, windowMs: WAIT_WINDOW_MS, readAt, runs };
  });
}

// ---------------------------------------------------------------------------------
// 4. Retention: what stays, and what the parent still knows

export type RetentionCase = 'kept' | 'dropped' | 'gone';

export interface RetentionBundle {
  name: RetentionCase;
  /** In words: which retention the parts and the bundle had. */
  retention: string;
  parentId: string;
  parts: number;
  /** The parent's state when it was last seen (a parent dropped on completion is then 'unknown'). */
  finalState: string;
  parentExists: boolean;
  /** Part hashes still in Redis. */
  partHashes: number;
  /** Values the parent still holds for its parts (getChildrenValues), when the parent exists. */
  values?: number;
  manifest?: BundleManifest;
  /** Keys under the bundle's name: the parent's hash, its dependency keys, the parts' hashes. */
  bundleKeys: number;
  /** The lineage from the parent's id: parts listed, parts whose hash remains, parts with a value. */
  lineage?: { listed: number; retained: number; withResult: number };
}

export interface RetentionEvidence {
  productCount: number;
  /** Every key under the scratch prefix, before the first add and after the last bundle finished. */
  keysBefore: number;
  keysAfter: number;
  bundles: RetentionBundle[];
}

export async function retention(ctx: FlowContext, signal: AbortSignal): Promise<RetentionEvidence> {
  return withResources(signal, async (res) => {
    const x = await openExperiment(res, 'flowretain');
    startWorkers(ctx, res, x, exportPart(x.pool));
    const keysBefore = await countPrefixKeys(x.redis, x.prefix);
    const { droppedParts, droppedBundle } = ctx.parts.retention;
    const cases: {
      name: RetentionCase;
      retention: string;
      childOptions: FlowNodeOptions;
      bundleOptions: FlowNodeOptions;
    }[] = [
      { name: 'kept', retention: 'parts and bundle kept an hour (lesson 08)', childOptions: {}, bundleOptions: {} },
      {
        name: 'dropped',
        retention: `parts ${JSON.stringify(droppedParts)}, bundle kept an hour`,
        childOptions: droppedParts,
        bundleOptions: {},
      },
      {
        name: 'gone',
        retention: `parts ${JSON.stringify(droppedParts)}, bundle ${JSON.stringify(droppedBundle)}`,
        childOptions: droppedParts,
        bundleOptions: droppedBundle,
      },
    ];
    const added = await Promise.all(
      cases.map(async (c) => ({
        ...c,
        flow: await ctx.parts.addExportFlow(x.producer, {
          bundleId: bundleIdOf(c.name),
          productIds: PRODUCTS,
          partSize: PART_SIZE,
          childOptions: c.childOptions,
          bundleOptions: c.bundleOptions,
        }),
      })),
    );
    const bundles: RetentionBundle[] = [];
    for (const c of added) {
      // A bundle dropped on completion is 'unknown' once done: it was there a moment ago.
      const finalState = await settle(x.queue, c.flow.parentId, ['completed', 'failed', 'unknown'], res.signal);
      const parent = await x.queue.getJob(c.flow.parentId);
      const partHashes = (await Promise.all(c.flow.childIds.map((id) => x.queue.getJob(id)))).filter(Boolean).length;
      const lineage = await readLineage(x.queue, c.flow.parentId);
      bundles.push({
        name: c.name,
        retention: c.retention,
        parentId: c.flow.parentId,
        parts: c.flow.childIds.length,
        finalState,
        parentExists: parent !== undefined,
        partHashes,
        ...(parent
          ? { values: Object.keys(await parent.getChildrenValues()).length, manifest: asManifest(parent.returnvalue) }
          : {}),
        bundleKeys: await countBundleKeys(x.redis, x.prefix, c.flow.parentId, FLOW_QUEUE),
        ...(lineage
          ? {
              lineage: {
                listed: lineage.children.length,
                retained: lineage.children.filter((ch) => ch.retained).length,
                withResult: lineage.children.filter((ch) => ch.result !== undefined).length,
              },
            }
          : {}),
      });
    }
    return { productCount: PRODUCTS.length, keysBefore, keysAfter: await countPrefixKeys(x.redis, x.prefix), bundles };
  });
}
