// Lesson 15's recovery checks, judged on the rows a real database kept:
//
//   The course's two scripts: a duplicate message cannot get past the persisted next_attempt_at
//   (set by hand, as the course does, and set by the scanner after a real expiry), and a job
//   dispatched but never claimed gets ONE new event however often the scanner looks.
//   Three expiries of real claims end in failed, one dead letter, the gate left, no fourth claim.
//   A replay is a new job linked to the failed one, which keeps its failure and dead letter.
//   A replay runs the failed job's own snapshot, even after the shop repriced or deleted a product.
//   A recovered job's event goes to its own route (the course sends all of them to bulk).
//
// buildRecoveryChecks(deps) builds them without starting anything; deps swap in broken parts
// for the can-fail tests (test/recovery-checks.can-fail.test.ts).
import { defineCheck, outcome, SECOND, type Check } from '@tasks-lab/lab-kit';
import { readShortRecoveryOptions, type RecoveryOptionValues } from '../src/options.ts';
import {
  DISPATCHED_AGO_MS,
  keepsRoute,
  queuedRecovery,
  REAL_RECOVERY_PARTS,
  PRICE_RISE_CENTS,
  replay,
  replaySnapshot,
  retryGate,
  threeExpiries,
  type ClaimSeen,
  type JobView,
  type RecoveryContext,
  type RecoveryParts,
  type ScanSeen,
  type SnapshotCase,
} from './recovery-scenarios.ts';

export interface RecoveryCheckDeps {
  /** Broken parts for the can-fail tests; the rest stays real. */
  recoveryParts?: Partial<RecoveryParts>;
  /** @defaultValue the short timings (1.5 s lease, 500 ms backoff, 1 s unclaimed threshold, 3 attempts) */
  recoveryTimings?: RecoveryOptionValues;
}

const short = (id: string | undefined) => (id ? id.slice(0, 8) : 'none');
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const describeClaim = (c: ClaimSeen | undefined) =>
  !c ? 'not tried' : c.claimed ? `claimed (attempts ${c.attempts})` : 'nothing';
const describeScan = (s: ScanSeen) =>
  `${s.moved}${s.reason ? ` (${s.reason})` : ''}${s.eventQueue ? ` event on ${s.eventQueue}` : ''}`;
const describeJob = (j: JobView) => `${j.status}, attempts ${j.attempts}${j.errorCode ? `, ${j.errorCode}` : ''}`;
const nothing = (c: ClaimSeen | undefined) => c !== undefined && !c.claimed;
const claimedWith = (c: ClaimSeen | undefined, attempts: number) =>
  c !== undefined && c.claimed && c.attempts === attempts;
const cents = (price: number | undefined) => (price === undefined ? 'gone' : String(price));

/** The shop really changed (else the case proves nothing), and the replay's snapshot is the failed job's, by value. */
function snapshotKept(c: SnapshotCase): boolean {
  const changed =
    c.name === 'repriced'
      ? c.priceThen !== undefined && c.priceNow === c.priceThen + PRICE_RISE_CENTS
      : c.priceThen !== undefined && c.priceNow === undefined;
  return changed && 'snapshot' in c.replay && c.equal;
}

function describeSnapshotCase(c: SnapshotCase): string {
  const change = `product ${c.productId} ${c.name}: ${cents(c.priceThen)} in the failed job's snapshot, ${cents(c.priceNow)} in the shop now`;
  if (!('snapshot' in c.replay)) return `${change}; no replay: ${c.replay.error.slice(0, 160)}`;
  const product = c.replay.snapshot.find((p) => p.id === c.productId);
  return (
    `${change}; the replay's snapshot: products ${c.replay.snapshot.map((p) => p.id).join(', ')}, product ${c.productId} at ${cents(product?.price_cents)}, ` +
    `${c.equal ? 'equal' : 'NOT equal'} to the failed job's by value`
  );
}

export function buildRecoveryChecks(deps: RecoveryCheckDeps = {}): Check[] {
  const ctx: RecoveryContext = {
    parts: { ...REAL_RECOVERY_PARTS, ...deps.recoveryParts },
    timings: deps.recoveryTimings ?? readShortRecoveryOptions(),
  };
  const timeoutMs = 30 * SECOND;
  return [
    defineCheck({
      id: 'retry-gate-holds-duplicates',
      name:
        "The persisted retry gate holds duplicate messages: with next_attempt_at ahead (the course's 10 s, shortened), two claims get nothing and attempts stay 0, then a claim gets attempts 1; " +
        'after a real lease expiry the scanner sets the same gate (the backoff): two claims inside it get nothing, one after it gets attempts 2',
      timeoutMs,
      scenario: (signal) => retryGate(ctx, signal),
      judge: (e) => {
        const course =
          e.course.early.every(nothing) &&
          e.course.early.length === 2 &&
          e.course.attemptsBetween === 0 &&
          claimedWith(e.course.late, 1);
        const s = e.scanner;
        const scanner =
          claimedWith(s.first, 1) &&
          s.scan.moved === 'requeued' &&
          s.scan.reason === 'lease_expired' &&
          s.early.length === 2 &&
          s.early.every(nothing) &&
          s.attemptsBetween === 1 &&
          claimedWith(s.late, 2);
        return outcome(
          course && scanner,
          `next_attempt_at ${seconds(e.gateMs)} ahead: claims ${e.course.early.map(describeClaim).join(', ')}, attempts then ${e.course.attemptsBetween}; after it: ${describeClaim(e.course.late)}. ` +
            `Scanner: first claim ${describeClaim(s.first)}, after its lease passed the scan: ${describeScan(s.scan)}; claims within ${s.waitedMs} ms of it ` +
            `(backoff ${seconds(s.backoffMs)}): ${s.early.map(describeClaim).join(', ')}, attempts then ${s.attemptsBetween}; after the backoff: ${describeClaim(s.late)}`,
        );
      },
    }),
    defineCheck({
      id: 'queued-recovery-one-pending-event',
      name:
        `A job whose event was confirmed ${DISPATCHED_AGO_MS / 1000} s ago and that nobody claimed gets one new unsent event from a scan; a second scan adds none, ` +
        "nor a third after the threshold with that event still unsent; attempts stay 0 (the course's verify_queued_recovery)",
      timeoutMs,
      scenario: (signal) => queuedRecovery(ctx, signal),
      judge: (e) => {
        const ok =
          e.before.unsent === 0 &&
          e.afterFirst.unsent === 1 &&
          e.afterFirst.events === e.before.events + 1 &&
          e.afterFirst.scan.moved === 'redispatched' &&
          e.afterSecond.unsent === 1 &&
          e.afterSecond.events === e.afterFirst.events &&
          e.afterThreshold.unsent === 1 &&
          e.afterThreshold.events === e.afterFirst.events &&
          e.job.status === 'queued' &&
          e.job.attempts === 0;
        return outcome(
          ok,
          `unsent events of the job: ${e.before.unsent} before, ${e.afterFirst.unsent} after the first scan (${describeScan(e.afterFirst.scan)}), ` +
            `${e.afterSecond.unsent} after the second (${describeScan(e.afterSecond.scan)}), ${e.afterThreshold.unsent} after a third past the threshold (${describeScan(e.afterThreshold.scan)}); ` +
            `events in all: ${e.before.events} -> ${e.afterFirst.events} -> ${e.afterSecond.events} -> ${e.afterThreshold.events}; ` +
            `the job: ${describeJob(e.job)} (threshold ${seconds(e.thresholdMs)})`,
        );
      },
    }),
    defineCheck({
      id: 'three-expiries-dead-letter',
      name: 'Three real claims whose leases expire (the short lease, waited for), a scan after each: queued, queued, then failed (attempts_exhausted) with one dead letter and the gate left; a fourth claim gets nothing',
      timeoutMs,
      scenario: (signal) => threeExpiries(ctx, signal),
      judge: (e) => {
        const expected = Array.from({ length: e.maxAttempts }, (_, i) =>
          i < e.maxAttempts - 1 ? 'requeued' : 'failed',
        );
        const roundsOk =
          e.rounds.length === e.maxAttempts &&
          e.rounds.every(
            (r, i) =>
              claimedWith(r.claim, i + 1) &&
              r.scan.moved === expected[i] &&
              r.deadLetters === (i < e.maxAttempts - 1 ? 0 : 1),
          );
        const last = e.rounds[e.rounds.length - 1];
        const ok =
          roundsOk &&
          last?.scan.reason === 'attempts_exhausted' &&
          last.gate === e.gateBefore - 1 &&
          e.job.status === 'failed' &&
          e.job.attempts === e.maxAttempts &&
          e.deadLetter?.reason === 'attempts_exhausted' &&
          nothing(e.fourth);
        const rounds = e.rounds
          .map(
            (r, i) =>
              `#${i + 1}: ${describeClaim(r.claim)}, scan: ${describeScan(r.scan)}, dead letters ${r.deadLetters}, gate ${r.gate}`,
          )
          .join('; ');
        return outcome(
          ok,
          `${rounds}; then a 4th claim: ${describeClaim(e.fourth)}; the job: ${describeJob(e.job)}; its dead letter: ${e.deadLetter?.reason ?? 'none'}; gate ${e.gateBefore} before (${seconds(e.ms)} in all)`,
        );
      },
    }),
    defineCheck({
      id: 'replay-new-linked-job',
      name: 'A replay of a failed job is a NEW queued job whose replay_of names it, on the same route, admitted through the gate; the failed job keeps its status, attempts, error and dead letter; a job that did not fail is refused (409 not-replayable)',
      timeoutMs,
      scenario: (signal) => replay(ctx, signal),
      judge: (e) => {
        const made = 'jobId' in e.replay ? e.replay : undefined;
        const newOk =
          made !== undefined &&
          made.created &&
          made.jobId !== e.failedId &&
          made.replayOf === e.failedId &&
          e.newJob?.status === 'queued' &&
          e.newJob.attempts === 0 &&
          e.newJob.replayOf === e.failedId &&
          e.newJob.queues.length === 1 &&
          e.newJob.queues[0] === e.failedRoute &&
          e.replaysOfFailed.length === 1 &&
          e.replaysOfFailed[0] === made.jobId &&
          e.gate.after === e.gate.before + 1;
        const keptOk =
          e.before.status === 'failed' &&
          e.after.status === 'failed' &&
          e.after.attempts === e.before.attempts &&
          e.after.errorCode === e.before.errorCode &&
          e.after.deadLetter !== undefined &&
          e.after.deadLetter === e.before.deadLetter;
        const refusedOk = e.notFailed.status === 409 && e.notFailed.code === 'not-replayable';
        const replayed = made
          ? `new job ${short(made.jobId)} (${e.newJob ? describeJob(e.newJob) : 'no row'}, replay_of ${short(e.newJob?.replayOf)}, events on ${e.newJob?.queues.join(', ') || 'nothing'})`
          : `no new job: ${'error' in e.replay ? e.replay.error : ''}`;
        return outcome(
          newOk && keptOk && refusedOk,
          `failed job ${short(e.failedId)} on ${e.failedRoute}: ${describeJob(e.before)}, dead letter ${e.before.deadLetter ?? 'none'}; replay: ${replayed}; ` +
            `jobs naming it: ${e.replaysOfFailed.length}; gate ${e.gate.before} -> ${e.gate.after}; the failed job after: ${describeJob(e.after)}, dead letter ${e.after.deadLetter ?? 'none'}; ` +
            `a queued job replayed: ${e.notFailed.status} ${e.notFailed.code}`,
        );
      },
    }),
    defineCheck({
      id: 'replay-keeps-snapshot',
      name:
        "A replay runs the failed job's own snapshot, compared by value: after the failure the shop raised product 1's price and deleted product 3, " +
        'and the replays of a job that exported product 1 and of one that exported product 3 still carry what was asked then (the course copies the payload)',
      timeoutMs,
      scenario: (signal) => replaySnapshot(ctx, signal),
      judge: (e) =>
        outcome(e.cases.length === 2 && e.cases.every(snapshotKept), e.cases.map(describeSnapshotCase).join('; ')),
    }),
    defineCheck({
      id: 'recovered-job-keeps-route',
      name: "A recovered job's new event goes to its own route: a fast job's expired lease and its unclaimed dispatch to exports.fast, a bulk job's to exports.bulk (the course sends every recovery to exports.bulk)",
      timeoutMs,
      scenario: (signal) => keepsRoute(ctx, signal),
      judge: (e) => {
        const ok = e.cases.every(
          (c) => c.scan.moved !== 'untouched' && c.queues.length === 2 && c.queues.every((q) => q === c.route),
        );
        return outcome(
          ok,
          e.cases
            .map((c) => `${c.name}: route ${c.route}, scan: ${describeScan(c.scan)}, events on ${c.queues.join(', ')}`)
            .join('; '),
        );
      },
    }),
  ];
}
