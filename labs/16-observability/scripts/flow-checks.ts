// The deep dive's checks: a fan-out export as a BullMQ flow (src/flow.ts), judged on what the
// installed BullMQ really did with real jobs on a real Redis, the parts reading real rows.
//
//   The parent runs only after every part completed, and its manifest has the parts in order.
//   The lineage is read from the parent's id alone, and a part's id leads back to its parent.
//   A part that fails for good does what its policy says, and each policy is seen doing it.
//   Retention: parts dropped on completion leave their values in the parent; the key count shows it.
//
// buildFlowChecks(deps) builds them without starting anything; deps swap in broken parts for the
// can-fail tests (test/flow-checks.can-fail.test.ts). The experiments: scripts/flow-scenarios.ts.
import { defineCheck, outcome, SECOND, type Check } from '@tasks-lab/lab-kit';
import type { Lineage, LineageChild } from '../src/flow.ts';
import {
  childFailure,
  LINEAGE_PARTS,
  lineageById,
  parentAfterChildren,
  REAL_FLOW_PARTS,
  retention,
  type ChildFailureEvidence,
  type FlowContext,
  type FlowParts,
  type LineageEvidence,
  type ParentAfterChildrenEvidence,
  type PolicyRun,
  type RetentionEvidence,
} from './flow-scenarios.ts';

export interface FlowCheckDeps {
  /** Broken parts for the can-fail tests; the rest stays real. */
  flowParts?: Partial<FlowParts>;
}

/** The check's words, with what was expected said where it was not met. */
const said = (ok: boolean, text: string, expected: string) => (ok ? text : `${text} (EXPECTED ${expected})`);
const at = (ms: number | undefined, origin: number) => (ms === undefined ? 'never' : `+${ms - origin} ms`);
const list = (values: readonly unknown[]) => `[${values.join(', ')}]`;
const sameList = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((v, i) => v === b[i]);
const clip = (text: string | undefined, n = 90) =>
  text === undefined ? 'none' : text.length > n ? `${text.slice(0, n)}…` : text;

// ---- 1. The parent runs after its parts -------------------------------------------------

function judgeParentAfterChildren(e: ParentAfterChildrenEvidence) {
  const t0 = e.addedAt;
  const finished = e.children.map((c) => c.finishedOn);
  const allDone = e.children.every((c) => c.state === 'completed' && c.finishedOn !== undefined);
  const lastPart = allDone ? Math.max(...(finished as number[])) : undefined;
  const order = [...e.children]
    .filter((c) => c.finishedOn !== undefined)
    .sort((a, b) => a.finishedOn! - b.finishedOn!)
    .map((c) => c.part);
  const waited = e.stateAfterAdd === 'waiting-children';
  const after =
    e.parent.state === 'completed' &&
    lastPart !== undefined &&
    e.parent.processedOn !== undefined &&
    e.parent.processedOn >= lastPart;
  const m = e.manifest;
  const expectedParts = e.expectedRows.map((_, i) => i + 1);
  const inOrder =
    m !== undefined &&
    sameList(
      m.parts.map((p) => p.part),
      expectedParts,
    ) &&
    sameList(
      m.parts.map((p) => p.rows),
      e.expectedRows,
    );
  const total = m !== undefined && m.total_rows === e.productCount && m.complete;
  const parts = [
    said(waited, `right after the add the parent was ${e.stateAfterAdd}`, 'waiting-children'),
    `the parts finished in the order ${list(order)} at ${e.children.map((c) => `${c.part}: ${at(c.finishedOn, t0)}`).join(', ')}`,
    said(
      after,
      `the parent (${e.parent.state}) started at ${at(e.parent.processedOn, t0)}`,
      'completed, started after the last part finished',
    ),
    m
      ? said(
          inOrder,
          `manifest parts ${list(m.parts.map((p) => `${p.part}:${p.rows} rows`))}`,
          `parts ${list(expectedParts)} in order, with ${list(e.expectedRows)} rows`,
        ) +
        '; ' +
        said(
          total,
          `total ${m.total_rows} rows of ${e.productCount} products${m.complete ? ', complete' : ', INCOMPLETE'}`,
          `${e.productCount} rows, complete`,
        )
      : said(false, `no manifest (${clip(e.parent.failedReason)})`, 'a manifest'),
  ];
  return outcome(waited && after && inOrder && total, parts.join('; '));
}

// ---- 2. Lineage by id --------------------------------------------------------------------

const rowsOf = (c: LineageChild | undefined) => (c?.result as { rows?: unknown } | undefined)?.rows;

function judgeLineage(e: LineageEvidence) {
  if (!e.lineage || 'error' in e.lineage) {
    return outcome(
      false,
      said(
        false,
        `no lineage for parent ${e.parentId}: ${e.lineage ? e.lineage.error : 'the parent was not found'}`,
        'the lineage of the parent',
      ),
    );
  }
  const lineage: Lineage = e.lineage;
  const byId = new Map(lineage.children.map((c) => [c.id, c]));
  const c = e.childIds.map((id) => byId.get(id));
  const listedIds = lineage.children.map((ch) => ch.id);
  const strangers = listedIds.filter((id) => !e.childIds.includes(id));
  const everyPart =
    e.childIds.every((id) => byId.has(id)) && strangers.length === 0 && lineage.children.length === e.childIds.length;
  const parentOk = lineage.parent.id === e.parentId && lineage.parent.state === 'waiting-children';
  const expect = [
    c[0]?.dependency === 'processed' && c[0].state === 'completed' && c[0].retained && rowsOf(c[0]) === 1,
    c[1]?.dependency === 'processed' && c[1].state === 'unknown' && !c[1].retained && rowsOf(c[1]) === 1,
    c[2]?.dependency === 'ignored' &&
      c[2].state === 'failed' &&
      (c[2].failedReason ?? '').includes(String(LINEAGE_PARTS[2].product)),
    c[3]?.dependency === 'pending' && c[3].state === 'delayed',
  ];
  const wanted = [
    'processed, completed, kept, 1 row',
    'processed, state unknown (hash removed), its value still in the parent: 1 row',
    `ignored, failed, naming product ${LINEAGE_PARTS[2].product}`,
    'pending, delayed',
  ];
  const describe = (ch: LineageChild | undefined) =>
    ch
      ? `${ch.dependency}, ${ch.state}${ch.retained ? '' : ' (hash gone)'}${rowsOf(ch) !== undefined ? `, ${String(rowsOf(ch))} row(s)` : ''}${ch.failedReason ? `, "${clip(ch.failedReason, 60)}"` : ''}`
      : 'NOT LISTED';
  const upward = e.childIds.map((id) => e.parentOf[id]);
  // A part's hash names its parent; a part whose hash was removed names nothing any more.
  const upOk =
    upward[0] === e.parentId && upward[1] === undefined && upward[2] === e.parentId && upward[3] === e.parentId;
  const parts = [
    e.reached ? 'the bundle reached its half-way point' : 'the bundle did NOT reach its half-way point in time',
    said(parentOk, `parent ${e.parentId}: ${lineage.parent.state}`, 'the same id, waiting-children'),
    said(
      everyPart,
      `lineage lists ${lineage.children.length} part(s)${strangers.length ? `, ${strangers.length} of ANOTHER bundle` : ''}`,
      `exactly its ${e.childIds.length} parts`,
    ),
    ...LINEAGE_PARTS.map((p, i) => said(expect[i]!, `part ${p.part} (${p.fate}): ${describe(c[i])}`, wanted[i]!)),
    said(
      upOk,
      `each part's parent, from the part's id: ${upward.map((u, i) => `${i + 1} -> ${u ?? 'none'}`).join(', ')}`,
      `${e.parentId} for parts 1, 3, 4, none for the removed part 2`,
    ),
  ];
  return outcome(e.reached && parentOk && everyPart && expect.every(Boolean) && upOk, parts.join('; '));
}

// ---- 3. A part that fails for good, per policy ---------------------------------------------

interface PolicyVerdict {
  ok: boolean;
  text: string;
}

const partsOf = (run: PolicyRun) => run.manifest?.parts.map((p) => p.part) ?? [];
const listedDependency = (run: PolicyRun) => run.lineage.find((l) => l.id === run.failingChildId)?.dependency;

function judgePolicy(run: PolicyRun, e: ChildFailureEvidence): PolicyVerdict {
  const p = run.parent;
  const failing = `part 2 ${run.failingChild.state}`;
  switch (run.policy) {
    case 'wait': {
      const watched = run.siblingsDoneAt === undefined ? 0 : e.readAt - run.siblingsDoneAt;
      const ok =
        p.state === 'waiting-children' &&
        watched >= e.windowMs &&
        run.failingChild.state === 'failed' &&
        listedDependency(run) === 'pending';
      return {
        ok,
        text: said(
          ok,
          `wait (${JSON.stringify(run.options)}): ${failing}, the parent ${p.state} ${watched} ms after its other parts completed (watched that long only: BullMQ sets no limit), part 2 ${listedDependency(run) ?? 'not listed'} in its lineage`,
          'the parent still waiting-children, the failed part still pending',
        ),
      };
    }
    case 'fail': {
      const ok =
        p.state === 'failed' && (p.failedReason ?? '').includes(run.failingChildId) && run.manifest === undefined;
      return {
        ok,
        text: said(
          ok,
          `fail (${JSON.stringify(run.options)}): ${failing}, the parent ${p.state}: "${clip(p.failedReason)}"`,
          'the parent failed, naming part 2, with no manifest',
        ),
      };
    }
    case 'ignore': {
      const m = run.manifest;
      const ok =
        p.state === 'completed' &&
        m !== undefined &&
        sameList(partsOf(run), [1, 3]) &&
        sameList(
          m.failed_parts.map((f) => f.part),
          [2],
        ) &&
        !m.complete &&
        listedDependency(run) === 'ignored';
      return {
        ok,
        text: said(
          ok,
          `ignore (${JSON.stringify(run.options)}): ${failing}, the parent ${p.state}, manifest parts ${list(partsOf(run))}, failed parts ${list(m?.failed_parts.map((f) => `${f.part}: ${clip(f.reason, 50)}`) ?? [])}, part 2 ${listedDependency(run) ?? 'not listed'} in its lineage`,
          'completed with parts [1, 3] and part 2 visible as failed',
        ),
      };
    }
    case 'remove': {
      const m = run.manifest;
      const ok =
        p.state === 'completed' &&
        m !== undefined &&
        sameList(partsOf(run), [1, 3]) &&
        m.failed_parts.length === 0 &&
        sameList(m.missing_parts, [2]) &&
        listedDependency(run) === undefined;
      return {
        ok,
        text: said(
          ok,
          `remove (${JSON.stringify(run.options)}): ${failing}, the parent ${p.state}, manifest parts ${list(partsOf(run))}, missing ${list(m?.missing_parts ?? [])}, part 2 ${listedDependency(run) ?? 'no longer listed'} in its lineage`,
          'completed without part 2, which its lineage no longer lists',
        ),
      };
    }
    case 'continue': {
      const early =
        p.processedOn !== undefined && run.siblingsDoneAt !== undefined && p.processedOn < run.siblingsDoneAt;
      const ok = p.state === 'failed' && (p.failedReason ?? '').includes('part 2') && early;
      const lead =
        p.processedOn !== undefined && run.siblingsDoneAt !== undefined
          ? `${run.siblingsDoneAt - p.processedOn} ms before its other parts completed`
          : 'with no start time';
      return {
        ok,
        text: said(
          ok,
          `continue (${JSON.stringify(run.options)}): ${failing}, the parent's processor ran ${lead} and gave the bundle up: ${p.state}, "${clip(p.failedReason)}"`,
          'the processor running before the other parts completed, failing the bundle and naming part 2',
        ),
      };
    }
  }
}

function judgeChildFailure(e: ChildFailureEvidence) {
  const verdicts = e.runs.map((run) => judgePolicy(run, e));
  const seen = e.runs.map((r) => r.policy);
  const all = (['wait', 'fail', 'ignore', 'remove', 'continue'] as const).every((name) => seen.includes(name));
  const ok = all && verdicts.every((v) => v.ok);
  return outcome(
    ok,
    `part 2 holds product ${e.missingProduct}, which does not exist; ${verdicts.map((v) => v.text).join('; ')}${all ? '' : ` (EXPECTED all five policies, saw ${list(seen)})`}`,
  );
}

// ---- 4. Retention -------------------------------------------------------------------------

function judgeRetention(e: RetentionEvidence) {
  const b = (name: string) => e.bundles.find((x) => x.name === name);
  const kept = b('kept');
  const dropped = b('dropped');
  const gone = b('gone');
  if (!kept || !dropped || !gone)
    return outcome(false, said(false, `bundles seen: ${list(e.bundles.map((x) => x.name))}`, 'kept, dropped and gone'));
  const manifestOk = (x: typeof kept) =>
    x.manifest !== undefined && x.manifest.complete && x.manifest.total_rows === e.productCount;
  const keptOk =
    kept.finalState === 'completed' && kept.partHashes === kept.parts && kept.values === kept.parts && manifestOk(kept);
  const droppedOk =
    dropped.finalState === 'completed' &&
    dropped.partHashes === 0 &&
    dropped.values === dropped.parts &&
    manifestOk(dropped) &&
    dropped.lineage?.listed === dropped.parts &&
    dropped.lineage.retained === 0 &&
    dropped.lineage.withResult === dropped.parts;
  const keysOk = dropped.bundleKeys > 0 && kept.bundleKeys - dropped.bundleKeys === kept.parts;
  const goneOk = !gone.parentExists && gone.partHashes === 0 && gone.bundleKeys === 0 && gone.lineage === undefined;
  const describe = (x: typeof kept) =>
    `${x.name} (${x.retention}): ${x.finalState}, ${x.partHashes}/${x.parts} part hashes, ` +
    (x.parentExists
      ? `the parent holds ${x.values ?? 0} part value(s), manifest ${x.manifest ? `${x.manifest.total_rows} rows` : 'none'}`
      : 'the parent is gone') +
    `, ${x.bundleKeys} key(s)` +
    (x.lineage
      ? `, lineage lists ${x.lineage.listed} (${x.lineage.retained} with a hash, ${x.lineage.withResult} with a value)`
      : ', no lineage');
  const parts = [
    `keys under the prefix: ${e.keysBefore} before, ${e.keysAfter} after`,
    said(
      keptOk,
      describe(kept),
      `${kept.parts}/${kept.parts} part hashes, ${kept.parts} values, a complete manifest of ${e.productCount} rows`,
    ),
    said(
      droppedOk,
      describe(dropped),
      `0/${dropped.parts} part hashes, the parent still holding ${dropped.parts} values, a complete manifest, the lineage listing every part with its value`,
    ),
    said(
      keysOk,
      `the dropped bundle holds ${kept.bundleKeys - dropped.bundleKeys} key(s) fewer than the kept one`,
      `${kept.parts} fewer: one per part, and more than none`,
    ),
    said(goneOk, describe(gone), 'no parent, no part hashes, 0 keys, no lineage left'),
  ];
  return outcome(keptOk && droppedOk && keysOk && goneOk, parts.join('; '));
}

export function buildFlowChecks(deps: FlowCheckDeps = {}): Check[] {
  const ctx: FlowContext = { parts: { ...REAL_FLOW_PARTS, ...deps.flowParts } };
  const timeoutMs = 20 * SECOND;
  return [
    defineCheck({
      id: 'flow-parent-runs-after-children',
      name: 'A bundle of 3 parts as a BullMQ flow: the parent waits in waiting-children and runs only after every part completed (they finish in reverse order); its manifest has every part in order and as many rows as products',
      timeoutMs,
      scenario: (signal) => parentAfterChildren(ctx, signal),
      judge: judgeParentAfterChildren,
    }),
    defineCheck({
      id: 'flow-lineage-by-id',
      name: "Given only the parent's id, the lineage lists every part of the bundle (completed, removed with its value kept, failed and ignored, still pending) with its state and result, and none of another bundle; given a part's id, its parent",
      timeoutMs,
      scenario: (signal) => lineageById(ctx, signal),
      judge: judgeLineage,
    }),
    defineCheck({
      id: 'flow-child-failure-explicit',
      name: 'A part that fails for good, under each failure policy the installed BullMQ has: wait leaves the parent in waiting-children, fail fails it, ignore completes it with the failure visible, remove completes it without the part, continue runs its processor at once',
      timeoutMs,
      scenario: (signal) => childFailure(ctx, signal),
      judge: judgeChildFailure,
    }),
    defineCheck({
      id: 'flow-results-retained-as-configured',
      name: 'Retention as configured: parts dropped on completion leave no hash, but the parent keeps their values (manifest and lineage intact) and the bundle holds one key fewer per part; a bundle dropped too leaves nothing, and no lineage',
      timeoutMs,
      scenario: (signal) => retention(ctx, signal),
      judge: judgeRetention,
    }),
  ];
}
