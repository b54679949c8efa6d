// The fan-out export as a BullMQ flow (src/flow.ts), against the installed BullMQ on the lab's
// real Redis and a fresh database: how a bundle is cut into parts, what a part reads and
// returns, the manifest, the lab's default failure policy, and the facts of BullMQ 6.7.0 the
// deep dive teaches (getFlow loses removed children, a removed dependency still names its
// parent, a removed parent takes the lineage with it). One worker serves the whole file on a
// prefix of its own, obliterated at the end.
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { UnrecoverableError, type FlowProducer } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerConnection, waitForFinalState } from '@tasks-lab/08-broker-worker';
import { renderArtifact } from '@tasks-lab/11-mysql-leases';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import {
  addExportFlow,
  BUNDLE_JOB,
  CHILD_FAILURE_POLICIES,
  countBundleKeys,
  countPrefixKeys,
  DROP_COMPLETED_PARTS,
  exportPart,
  FLOW_QUEUE,
  manifestOf,
  openFlowProducer,
  openFlowQueue,
  PART_JOB,
  partDataSchema,
  planExportFlow,
  readLineage,
  readParentOf,
  startFlowWorkers,
  type BundleManifest,
  type ExportFlowQueue,
  type RunningFlowWorkers,
} from '../src/flow.ts';
import { QUEUE_PREFIX } from '../src/options.ts';

const MISSING = 999_999;
const sha256 = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex');
let bundles = 0;
const bundleId = (label: string) => `${label}-${randomBytes(3).toString('hex')}${(bundles += 1)}`;

describe('planExportFlow (nothing sent)', () => {
  it('When 5 products are cut in parts of 2, Then 3 parts carry ids only, under the lab default (attempts 1, fail the bundle, kept an hour) [test:flow-plan-parts]', () => {
    const plan = planExportFlow({ bundleId: 'b-1', productIds: [1, 2, 3, 4, 5], partSize: 2 });
    expect(plan).toMatchObject({
      name: BUNDLE_JOB,
      queueName: FLOW_QUEUE,
      data: { bundle_id: 'b-1', parts: 3, product_count: 5 },
      opts: { jobId: 'b-1', attempts: 1 },
    });
    expect(plan.children?.map((c) => c.data)).toEqual([
      { bundle_id: 'b-1', part: 1, product_ids: [1, 2] },
      { bundle_id: 'b-1', part: 2, product_ids: [3, 4] },
      { bundle_id: 'b-1', part: 3, product_ids: [5] },
    ]);
    expect(plan.children?.map((c) => c.opts?.jobId)).toEqual(['b-1.part-1', 'b-1.part-2', 'b-1.part-3']);
    expect(plan.children?.[0]?.opts).toMatchObject({
      attempts: 1,
      failParentOnFailure: true,
      removeOnComplete: { age: 3600 },
    });
    const custom = planExportFlow({
      bundleId: 'b-2',
      productIds: [1, 2],
      partSize: 1,
      failurePolicy: CHILD_FAILURE_POLICIES.ignore,
      childOptions: (part) => (part === 2 ? DROP_COMPLETED_PARTS : {}),
    });
    expect(custom.children?.[0]?.opts).not.toHaveProperty('failParentOnFailure');
    expect(custom.children?.[1]?.opts).toMatchObject({ ignoreDependencyOnFailure: true, removeOnComplete: true });
  });

  it('When the bundle id, the part size or the products are unfit, Then nothing is planned [test:flow-plan-refuses]', () => {
    for (const id of ['a:b', '123', '', 'x'.repeat(65), 'a b'])
      expect(() => planExportFlow({ bundleId: id, productIds: [1], partSize: 1 }), id).toThrow(RangeError);
    expect(() => planExportFlow({ bundleId: 'b', productIds: [1], partSize: 0 })).toThrow(/partSize/);
    expect(() => planExportFlow({ bundleId: 'b', productIds: [1], partSize: 1001 })).toThrow(/partSize/);
    expect(() => planExportFlow({ bundleId: 'b', productIds: [], partSize: 2 })).toThrow(/at least one/);
    expect(() => planExportFlow({ bundleId: 'b', productIds: [1, -2], partSize: 2 })).toThrow();
  });

  it('When a part message carries a field the contract does not name, Then it is refused [test:flow-part-contract-strict]', () => {
    expect(partDataSchema.safeParse({ bundle_id: 'b', part: 1, product_ids: [1] }).success).toBe(true);
    expect(partDataSchema.safeParse({ bundle_id: 'b', part: 1, product_ids: [1], db_password: 'x' }).success).toBe(
      false,
    );
  });

  it('When parts are missing or failed, Then the manifest says which, and is not complete [test:flow-manifest-gaps]', () => {
    const p = (part: number, rows: number) => ({ part, rows, sha256: sha256(String(part)) });
    const full = manifestOf({ bundle_id: 'b', parts: 3, product_count: 5 }, [p(1, 2), p(2, 2), p(3, 1)], []);
    expect(full).toMatchObject({
      total_rows: 5,
      complete: true,
      missing_parts: [],
      sha256: sha256([p(1, 2), p(2, 2), p(3, 1)].map((x) => x.sha256).join('\n')),
    });
    const gaps = manifestOf({ bundle_id: 'b', parts: 3, product_count: 5 }, [p(1, 2)], [{ part: 3, reason: 'gone' }]);
    expect(gaps).toMatchObject({
      total_rows: 2,
      complete: false,
      missing_parts: [2],
      failed_parts: [{ part: 3, reason: 'gone' }],
    });
  });
});

describe('a bundle on the real Redis and database', () => {
  let db: FreshDatabase;
  let prefix: string;
  let producer: FlowProducer;
  let queue: ExportFlowQueue;
  let redis: Redis;
  let workers: RunningFlowWorkers;

  beforeAll(async () => {
    db = await freshDatabase('flow');
    prefix = `${QUEUE_PREFIX}-x${randomBytes(4).toString('hex')}`;
    redis = new Redis(brokerConnection());
    producer = await openFlowProducer(prefix);
    queue = await openFlowQueue(prefix);
    workers = startFlowWorkers({ prefix, pool: db.pool });
  });

  afterAll(async () => {
    await workers?.close();
    await queue?.obliterate({ force: true });
    await queue?.close();
    await producer?.close();
    redis?.disconnect();
    await db?.drop();
  });

  const finished = (id: string) => waitForFinalState(queue, id, { timeoutMs: 5000 });

  it('When a part runs, Then it reads its products and returns their count and the sha256 of the bytes an artifact would hold; a missing product fails it for good [test:flow-part-reads-products]', async () => {
    const part = exportPart(db.pool);
    const result = await part({ bundle_id: 'b', part: 1, product_ids: [2, 1] }, undefined as never);
    const [rows] = await db.pool.query(
      'SELECT id, name, description, is_active, price_cents FROM products WHERE id IN (1, 2)',
    );
    const byId = new Map((rows as { id: number }[]).map((r) => [Number(r.id), r as Record<string, unknown>]));
    const expected = [2, 1].map((id) => {
      const r = byId.get(id)!;
      return {
        id,
        name: r.name,
        description: r.description,
        is_active: Boolean(Number(r.is_active)),
        price_cents: Number(r.price_cents),
      };
    });
    expect(result).toEqual({ part: 1, rows: 2, sha256: sha256(renderArtifact(expected)) });
    await expect(part({ bundle_id: 'b', part: 2, product_ids: [1, MISSING] }, undefined as never)).rejects.toThrow(
      UnrecoverableError,
    );
  });

  it('When a bundle of 3 parts runs, Then its manifest has them in order, 5 rows, and its lineage lists the 3 parts completed [test:flow-bundle-manifest]', async () => {
    const added = await addExportFlow(producer, {
      bundleId: bundleId('manifest'),
      productIds: [1, 2, 3, 4, 5],
      partSize: 2,
    });
    const { state, job } = await finished(added.parentId);
    expect(state).toBe('completed');
    const manifest = job.returnvalue as BundleManifest;
    expect(manifest.parts.map((p) => [p.part, p.rows])).toEqual([
      [1, 2],
      [2, 2],
      [3, 1],
    ]);
    expect(manifest).toMatchObject({ total_rows: 5, complete: true, failed_parts: [], missing_parts: [] });
    const lineage = await readLineage(queue, added.parentId);
    expect(lineage?.children.map((c) => [c.id, c.dependency, c.state, c.retained])).toEqual(
      added.childIds.map((id) => [id, 'processed', 'completed', true]),
    );
    expect(await readParentOf(queue, added.childIds[2]!)).toBe(added.parentId);
  });

  it("When a part fails under the lab's default policy, Then the bundle fails at once, naming the part (BullMQ's own default would wait for ever) [test:flow-default-policy-fails-bundle]", async () => {
    const added = await addExportFlow(producer, {
      bundleId: bundleId('default'),
      productIds: [1, MISSING, 3],
      partSize: 1,
    });
    const { state, job } = await finished(added.parentId);
    expect(state).toBe('failed');
    expect(job.failedReason).toContain(added.childIds[1]);
    expect(job.returnvalue).toBeNull();
  });

  it("When the parts are dropped on completion, Then BullMQ's getFlow has nothing for them while readLineage still lists each with its value [test:flow-getflow-loses-removed-children]", async () => {
    const added = await addExportFlow(producer, {
      bundleId: bundleId('dropped'),
      productIds: [1, 2, 3],
      partSize: 1,
      childOptions: DROP_COMPLETED_PARTS,
    });
    expect((await finished(added.parentId)).state).toBe('completed');
    const tree = await producer.getFlow({ id: added.parentId, queueName: FLOW_QUEUE });
    expect(tree.children).toHaveLength(3);
    expect(tree.children?.every((child) => child === undefined)).toBe(true);
    const lineage = await readLineage(queue, added.parentId);
    expect(lineage?.children.map((c) => [c.id, c.state, c.retained, (c.result as { rows: number }).rows])).toEqual(
      added.childIds.map((id) => [id, 'unknown', false, 1]),
    );
  });

  it('When a failed part is removed from its bundle (remove policy), Then the lineage forgets it while the part still names its parent [test:flow-remove-policy-one-way]', async () => {
    const added = await addExportFlow(producer, {
      bundleId: bundleId('remove'),
      productIds: [1, MISSING],
      partSize: 1,
      failurePolicy: CHILD_FAILURE_POLICIES.remove,
    });
    expect((await finished(added.parentId)).state).toBe('completed');
    const lineage = await readLineage(queue, added.parentId);
    expect(lineage?.children.map((c) => c.id)).toEqual([added.childIds[0]]);
    expect(await queue.getJobState(added.childIds[1]!)).toBe('failed');
    expect(await readParentOf(queue, added.childIds[1]!)).toBe(added.parentId);
  });

  it('When the bundle is dropped on completion but its parts are kept, Then the lineage is gone and the parts name a parent that no longer exists [test:flow-parent-removal-orphans-parts]', async () => {
    const added = await addExportFlow(producer, {
      bundleId: bundleId('orphans'),
      productIds: [1, 2],
      partSize: 1,
      bundleOptions: { removeOnComplete: true },
    });
    await expect.poll(() => queue.getJobState(added.parentId), { timeout: 5000, interval: 50 }).toBe('unknown');
    expect(await readLineage(queue, added.parentId)).toBeUndefined();
    expect(await queue.getJobState(added.childIds[0]!)).toBe('completed');
    expect(await readParentOf(queue, added.childIds[0]!)).toBe(added.parentId);
    // Only the parts' hashes remain: the parent's hash and its `processed` went with it.
    expect(await countBundleKeys(redis, prefix, added.parentId)).toBe(2);
  });

  it("When two bundles' ids share a beginning, Then each one's key count is its own [test:flow-count-bundle-keys]", async () => {
    const id = bundleId('keys');
    const a = await addExportFlow(producer, { bundleId: id, productIds: [1], partSize: 1 });
    const b = await addExportFlow(producer, { bundleId: `${id}0`, productIds: [1, 2], partSize: 1 });
    await finished(a.parentId);
    await finished(b.parentId);
    // The parent's hash, its `processed` hash, one hash per part.
    expect(await countBundleKeys(redis, prefix, a.parentId)).toBe(3);
    expect(await countBundleKeys(redis, prefix, b.parentId)).toBe(4);
  });

  it('When a part job arrives with data the contract refuses, Then the worker fails it without a retry [test:flow-worker-refuses-bad-part]', async () => {
    const job = await queue.add(PART_JOB, { bundle_id: 'b', part: 1, product_ids: [1], api_key: 'x' } as never, {
      jobId: bundleId('bad'),
      attempts: 3,
    });
    const { state, job: after } = await finished(String(job.id));
    expect(state).toBe('failed');
    expect(after.attemptsMade).toBe(1);
    expect(after.failedReason).toMatch(/contract refuses/);
  });

  it('When the flow queue is obliterated, Then no key is left under the prefix [test:flow-obliterate-leaves-nothing]', async () => {
    const own = `${QUEUE_PREFIX}-x${randomBytes(4).toString('hex')}`;
    const ownProducer = await openFlowProducer(own);
    const ownQueue = await openFlowQueue(own);
    try {
      const added = await addExportFlow(ownProducer, {
        bundleId: bundleId('wipe'),
        productIds: [1, 2],
        partSize: 1,
        childOptions: { delay: 60_000 },
      });
      expect(await countBundleKeys(redis, own, added.parentId)).toBeGreaterThan(0);
      await ownQueue.obliterate({ force: true });
      expect(await countPrefixKeys(redis, own)).toBe(0);
    } finally {
      await ownQueue.close();
      await ownProducer.close();
    }
  });
});
