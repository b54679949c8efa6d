// Every flow check must fail when a real part is broken: a bundle added as loose jobs (the
// parent does not wait), a parent that lists the parts in the order they finished, a lineage
// reader that scans the state lists or drops the parts it has no value for, the wrong policy
// options, retention off. Each case runs the check's real scenario (a fresh database, a
// scratch BullMQ prefix, a real worker and FlowProducer). The broken parts are small and
// live here, beside the cases that use them.
import { describe } from 'vitest';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { buildFlowChecks, type FlowCheckDeps } from '../scripts/flow-checks.ts';
import { REAL_FLOW_PARTS, type FlowParts } from '../scripts/flow-scenarios.ts';
import {
  CHILD_FAILURE_POLICIES,
  manifestOf,
  openFlowQueue,
  partOf,
  partResultSchema,
  planExportFlow,
  type BundleProcessor,
  type ExportFlowJob,
  type ExportFlowQueue,
  type Lineage,
  type LineageChild,
} from '../src/flow.ts';

const broken = (parts: Partial<FlowParts>) => (): FlowCheckDeps => ({ flowParts: parts });

/** The bundle and its parts added as loose jobs (addBulk of leaves): nothing makes the bundle wait. */
const looseJobs: FlowParts['addExportFlow'] = async (producer, request) => {
  const { children = [], ...bundle } = planExportFlow(request);
  await producer.addBulk([bundle, ...children.map((child) => ({ ...child, children: undefined }))]);
  return { parentId: String(bundle.opts?.jobId), childIds: children.map((child) => String(child.opts?.jobId)) };
};

/** The parts in the order they arrived (sorted by when each finished), as a naive join appends results. */
const arrivalOrder: BundleProcessor = async (data, job) => {
  const values = Object.entries(await job.getChildrenValues());
  const queue = await openFlowQueue(job.prefix, job.queueName);
  const finished = await Promise.all(
    values.map(async ([key]) => (await queue.getJob(key.slice(key.lastIndexOf(':') + 1)))?.finishedOn ?? 0),
  ).finally(() => queue.close());
  const parts = values
    .map(([, value], i) => ({ value: partResultSchema.parse(value), at: finished[i]! }))
    .sort((a, b) => a.at - b.at);
  return manifestOf(
    data,
    parts.map((p) => p.value),
    [],
  );
};

/** The children found by scanning the state lists for jobs naming the parent: a removed part is in none. */
const scanningLineage: FlowParts['readLineage'] = async (queue: ExportFlowQueue, parentId) => {
  const parent = await queue.getJob(parentId);
  if (!parent) return undefined;
  const jobs: ExportFlowJob[] = await queue.getJobs([
    'completed',
    'failed',
    'delayed',
    'waiting',
    'active',
    'waiting-children',
  ]);
  const children: LineageChild[] = [];
  for (const job of jobs.filter((j) => j.parent?.id === parentId)) {
    const id = String(job.id);
    const state = await job.getState();
    children.push({
      id,
      part: partOf(id),
      dependency: state === 'failed' ? 'ignored' : state === 'completed' ? 'processed' : 'pending',
      state,
      result: job.returnvalue ?? undefined,
      failedReason: job.failedReason || undefined,
      retained: true,
    });
  }
  return {
    parent: { id: parentId, state: await queue.getJobState(parentId) },
    children: children.sort((a, b) => (a.part ?? 0) - (b.part ?? 0)),
  };
};

/** Only the parts that left a value (getChildrenValues): failed and pending parts are dropped. */
const valuesOnlyLineage: FlowParts['readLineage'] = async (
  queue: ExportFlowQueue,
  parentId,
): Promise<Lineage | undefined> => {
  const parent = await queue.getJob(parentId);
  if (!parent) return undefined;
  const values = await parent.getChildrenValues();
  const children = await Promise.all(
    Object.entries(values).map(async ([key, result]) => {
      const id = key.slice(key.lastIndexOf(':') + 1);
      const job = await queue.getJob(id);
      return {
        id,
        part: partOf(id),
        dependency: 'processed' as const,
        state: await queue.getJobState(id),
        result,
        retained: job !== undefined,
      };
    }),
  );
  return {
    parent: { id: parentId, state: await queue.getJobState(parentId) },
    children: children.sort((a, b) => (a.part ?? 0) - (b.part ?? 0)),
  };
};

describe('flow checks can fail', () => {
  const suite = canFailSuite(buildFlowChecks);
  const quick = { timeoutMs: 30_000 };

  suite.breaks(
    'flow-parent-runs-after-children',
    'the bundle and its parts are added as loose jobs, not a flow',
    broken({ addExportFlow: looseJobs }),
    {
      ...quick,
      observed:
        /right after the add the parent was (waiting|active|completed|prioritized) \(EXPECTED waiting-children\)/,
    },
  );
  suite.breaks(
    'flow-parent-runs-after-children',
    'the parent lists the parts in the order they finished, not in part order',
    broken({ processBundle: arrivalOrder }),
    {
      ...quick,
      observed: /manifest parts \[3:1 rows, 2:2 rows, 1:2 rows\] \(EXPECTED parts \[1, 2, 3\] in order/,
    },
  );
  suite.breaks(
    'flow-lineage-by-id',
    'the lineage reader scans the state lists for jobs naming the parent',
    broken({ readLineage: scanningLineage }),
    {
      ...quick,
      observed: /part 2 \(completed, its hash removed \(removeOnComplete\)\): NOT LISTED \(EXPECTED/,
    },
  );
  suite.breaks(
    'flow-lineage-by-id',
    'the lineage reader lists only the parts that left a value',
    broken({ readLineage: valuesOnlyLineage }),
    {
      ...quick,
      observed: /part 3 .*NOT LISTED \(EXPECTED ignored.*part 4 .*NOT LISTED \(EXPECTED pending/,
    },
  );
  suite.breaks(
    'flow-child-failure-explicit',
    "the fail policy's options are BullMQ's default (none)",
    broken({ policies: { ...CHILD_FAILURE_POLICIES, fail: {} } }),
    {
      ...quick,
      observed: /fail \(\{\}\): part 2 failed, the parent waiting-children.*\(EXPECTED the parent failed/,
    },
  );
  suite.breaks(
    'flow-child-failure-explicit',
    "the ignore policy's options remove the dependency instead",
    broken({ policies: { ...CHILD_FAILURE_POLICIES, ignore: CHILD_FAILURE_POLICIES.remove } }),
    {
      ...quick,
      observed:
        /ignore \(\{"removeDependencyOnFailure":true\}\).*failed parts \[\].*\(EXPECTED completed with parts \[1, 3\] and part 2 visible as failed\)/,
    },
  );
  suite.breaks(
    'flow-results-retained-as-configured',
    'the parts meant to be dropped on completion are kept (retention off)',
    broken({ retention: { ...REAL_FLOW_PARTS.retention, droppedParts: {} } }),
    {
      ...quick,
      observed: /dropped \(parts \{\}, bundle kept an hour\): completed, 3\/3 part hashes.*\(EXPECTED 0\/3 part hashes/,
    },
  );
  suite.coversEveryCheck();
});
