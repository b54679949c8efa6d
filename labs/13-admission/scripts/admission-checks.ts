// Lesson 13's admission checks: a burst of concurrent POSTs against a small limit, run
// once per form (the course's gate, the lab's gate, the lab's gate behind the early refusal)
// and judged by the same three checks (the count the client sees, what the gate read under
// its lock, the rows the refusals left); the per-client quota, on and off; the gate held by
// another session (a lock-wait timeout is retried, and when every retry fails the answer is
// a 503 that created nothing, never a 500); and a full service with the gate held, refused
// early (at once) or under the lock (only after the lock waits).
// buildAdmissionChecks(deps) builds them without starting anything; deps swap in a broken
// admission for the can-fail tests.
import { defineCheck, fail, outcome, pass, sharedScenario, SECOND, type Check } from '@tasks-lab/lab-kit';
import { COURSE_RULES } from '../src/admission.ts';
import { readShortAdmissionOptions, type AdmissionOptionValues } from '../src/options.ts';
import {
  BURST,
  burst,
  clientQuota,
  EXHAUSTED_RETRIES,
  FULL,
  fullServiceWhileGateHeld,
  type AdmissionForm,
  type FullServiceEvidence,
  lockWaitExhausted,
  lockWaitRetried,
  QUOTA,
  REAL_ADMISSION_PARTS,
  type AdmissionContext,
  type AdmissionParts,
  type Answer,
  type BurstEvidence,
  type LockWaitEvidence,
  type Reading,
} from './admission-scenarios.ts';

export interface AdmissionCheckDeps {
  /** A broken admission for the can-fail tests; the rest stays real. */
  admissionParts?: Partial<AdmissionParts>;
  /** @defaultValue the short timings (USE_COURSE_TIMINGS=1 forces the course's): the database session's lock wait comes from here */
  admissionTimings?: AdmissionOptionValues;
}

const short = (id: string | undefined) => (id ? id.slice(0, 8) : 'none');
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "5 × 202, 45 × 503": how many of each value, in the values' order. */
function tally(values: readonly (string | number | null | undefined)[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(String(value ?? 'none'), (counts.get(String(value ?? 'none')) ?? 0) + 1);
  return (
    [...counts]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([value, n]) => `${n} × ${value}`)
      .join(', ') || 'nothing'
  );
}

const withStatus = (answers: readonly Answer[], status: number) => answers.filter((a) => a.status === status);

/** A refusal as the lesson wants it: the status, the error code, and a Retry-After of `retryAfter` seconds. */
const refusedAs = (a: Answer, status: number, error: string, retryAfter: number) =>
  a.status === status && a.error === error && a.retryAfter === String(retryAfter);

/** The refusals' error codes and Retry-After headers, e.g. "the 503s' error codes: 45 × capacity-exceeded; Retry-After: 45 × "5"". */
const describeRefusals = (refused: readonly Answer[], status: number) =>
  refused.length === 0
    ? `no ${status}s`
    : `the ${status}s' error codes: ${tally(refused.map((a) => a.error))}; Retry-After: ${tally(refused.map((a) => a.retryAfter && `"${a.retryAfter}"`))}`;

/** The app's other log lines (an unexpected error's first line), cut short. */
const unexpected = (log: readonly string[]) =>
  log.length === 0
    ? ''
    : `; the app also logged: ${log
        .slice(0, 2)
        .map((l) => (l.split('\n')[0] ?? '').slice(0, 140))
        .join(' | ')}`;

// ---------------------------------------------------------------------------------
// The burst's judges: the same three for each form.

/** "counter gate, early refusal on". */
const formOf = (e: AdmissionForm) =>
  `${e.design} gate, early refusal ${e.earlyRefusal}${e.groupMax > 1 ? `, groups of up to ${e.groupMax}` : ', alone'}`;

/** The sizes of the groups the admissions committed in, in order: "1+4" (every admission alone: "1+1+1+1+1"). */
function groupsOf(readings: readonly Reading[]): number[] {
  const sizes: number[] = [];
  for (const r of readings) if ((r.group?.position ?? 1) === 1) sizes.push(r.group?.size ?? 1);
  return sizes;
}

function admitsExactlyLimit(e: BurstEvidence) {
  const accepted = withStatus(e.answers, 202);
  const refused = withStatus(e.answers, 503);
  const wrong = refused.filter((a) => !refusedAs(a, 503, 'capacity-exceeded', e.rules.retryAfterSeconds));
  const seen =
    `limit ${e.rules.admissionLimit}, ${e.answers.length} POSTs at once: ${tally(e.answers.map((a) => a.status))} in ${seconds(e.ms)}; ` +
    `${describeRefusals(refused, 503)} (${formOf(e)})${unexpected(e.otherLog)}`;
  const expectedRefusals = e.answers.length - e.rules.admissionLimit;
  return outcome(
    accepted.length === e.rules.admissionLimit && refused.length === expectedRefusals && wrong.length === 0,
    seen,
  );
}

function readsUnderLock(e: BurstEvidence) {
  const limit = e.rules.admissionLimit;
  const before = e.readings.map((r) => r.activeBefore).sort((a, b) => a - b);
  const expected = Array.from({ length: limit }, (_, i) => i);
  const problems: string[] = [];
  if (e.readings.length !== limit) problems.push(`${e.readings.length} admissions logged for a limit of ${limit}`);
  if (before.join() !== expected.join()) {
    const repeated =
      new Set(before).size < before.length
        ? ' (two admissions read the same number: the read was not under the lock)'
        : '';
    problems.push(`the gate read activeBefore ${before.join(',') || 'nothing'}, not ${expected.join(',')}${repeated}`);
  }
  const strange = e.readings.filter((r) => r.activeBefore >= r.limit || r.limit !== limit || r.design !== e.design);
  if (strange.length > 0)
    problems.push(
      `${strange.length} reading(s) at or over their limit, or of another limit or design (${strange
        .slice(0, 2)
        .map((r) => `${r.activeBefore} of ${r.limit}, ${r.design}`)
        .join('; ')})`,
    );
  if (e.sampled.max > limit) problems.push(`another session saw ${e.sampled.max} jobs queued or running at once`);
  if (e.sampled.samples === 0)
    problems.push(`the sampler got no count (${e.sampled.errors.join(' | ') || 'no error'})`);
  const groups = groupsOf(e.readings);
  // A grouped form that only ever admitted one at a time has not shown that groups keep the limit.
  // Required where every request reaches the gate (early refusal off): 48 of them wait in line
  // behind the first two groups. Behind the early refusal most are refused before the line, so
  // only the five admitted ever queue there: a group is likely, not certain.
  if (e.groupMax > 1 && e.earlyRefusal === 'off' && !groups.some((size) => size > 1))
    problems.push('no admission shared a group');
  if (e.groupMax === 1 && groups.some((size) => size > 1)) problems.push('admissions shared a group with groups off');
  const seen =
    `${e.readings.length} admissions logged, activeBefore ${before.join(',') || 'none'} of limit ${limit}, in groups of ${groups.join('+') || 'none'} (${formOf(e)}); ` +
    `another session saw at most ${e.sampled.max} queued+running in ${e.sampled.samples} samples during the burst`;
  return problems.length === 0 ? pass(seen) : fail(`${problems.join('; ')} — ${seen}`);
}

function refusalsLeaveNothing(e: BurstEvidence) {
  const a = e.after;
  const limit = e.rules.admissionLimit;
  const accepted = withStatus(e.answers, 202);
  const refusals = e.answers.length - accepted.length;
  const distinct = new Set(accepted.map((x) => x.jobId)).size;
  const ok =
    a.jobs === limit &&
    a.events === limit &&
    a.jobsWithoutEvent === 0 &&
    a.eventsWithoutJob === 0 &&
    a.gateCounter === a.activeJobs &&
    a.acceptedButMissing.length === 0 &&
    distinct === accepted.length;
  const seen =
    `after ${refusals} refusals: ${a.jobs} jobs, ${a.events} events (limit ${limit}), ${a.jobsWithoutEvent} jobs without an event, ${a.eventsWithoutJob} events without a job; ` +
    `gate counter ${a.gateCounter}, counted active ${a.activeJobs}; ` +
    `${accepted.length - a.acceptedButMissing.length} of ${accepted.length} 202s name a job that exists with its event` +
    (a.acceptedButMissing.length > 0 ? ` (MISSING: ${a.acceptedButMissing.slice(0, 3).map(short).join(', ')})` : '') +
    (distinct !== accepted.length ? `, but only ${distinct} distinct job ids` : '') +
    ` (${formOf(e)})`;
  return outcome(ok, seen);
}

/** The three forms the burst runs in, each with its words and the suffix of its check ids. */
const FORMS: readonly { form: AdmissionForm; words: string; suffix: string }[] = [
  {
    form: { design: 'count', earlyRefusal: 'off', groupMax: 1 },
    words: "the course's gate (lock, COUNT the active jobs, insert; every refusal under the lock)",
    suffix: 'count-gate',
  },
  {
    form: { design: 'counter', earlyRefusal: 'off', groupMax: 1 },
    words: "the lab's gate (insert, then lock and read the counter)",
    suffix: 'counter-gate',
  },
  {
    form: { design: 'counter', earlyRefusal: 'off', groupMax: COURSE_RULES.admissionGroupMax },
    words:
      "the lab's gate with group commit (admissions that arrive together share one transaction and one gate update)",
    suffix: 'counter-gate-grouped',
  },
  {
    form: { design: 'counter', earlyRefusal: 'on', groupMax: COURSE_RULES.admissionGroupMax },
    words: "the lab's gate behind the early refusal (a full service refused before the lock)",
    suffix: 'counter-gate-early-refusal',
  },
];

function burstChecks(ctx: AdmissionContext, { form, words, suffix }: (typeof FORMS)[number]): Check[] {
  const run = sharedScenario(burst(ctx, form));
  const timeoutMs = 45 * SECOND;
  return [
    defineCheck({
      id: `burst-admits-exactly-limit-${suffix}`,
      name: `${BURST.requests} concurrent POSTs against a limit of ${BURST.limit}, ${words}: exactly ${BURST.limit} answered 202, every other one 503 capacity-exceeded with Retry-After`,
      timeoutMs,
      scenario: run,
      judge: admitsExactlyLimit,
    }),
    defineCheck({
      id: `burst-gate-reads-under-lock-${suffix}`,
      name: `In that burst (${formOf(form)}), each admission read a different number of active jobs under the gate's lock (0 to ${BURST.limit - 1}), and no other session ever saw more than ${BURST.limit} queued or running`,
      timeoutMs,
      scenario: run,
      judge: readsUnderLock,
    }),
    defineCheck({
      id: `burst-refusals-leave-nothing-${suffix}`,
      name: `In that burst (${formOf(form)}), the refusals left no row: ${BURST.limit} jobs and ${BURST.limit} events, no orphans, the gate counter equals the active jobs, and every 202 names a job that exists`,
      timeoutMs,
      scenario: run,
      judge: refusalsLeaveNothing,
    }),
  ];
}

// ---------------------------------------------------------------------------------
// The per-client quota, and the gate held by another session.

function describeLockWait(e: LockWaitEvidence): string {
  const a = e.answer;
  const answered =
    a.status === 202
      ? `202 (job ${short(a.jobId)})`
      : `${a.status} ${a.error ?? ''}${a.retryAfter ? ` with Retry-After ${a.retryAfter}` : ' without Retry-After'}`;
  const attempts = e.reading ? `admitted on attempt ${e.reading.attempts}` : 'no admission reported';
  return (
    `another session held the gate ${seconds(e.heldMs)} (lock wait ${e.lockWaitSeconds} s, ${plural(e.rules.admissionRetries, 'retry', 'retries')}): the POST answered ${answered} after ${seconds(a.ms)}, ` +
    `${attempts}, ${plural(e.retryLines.length, 'retry line', 'retry lines')} logged${e.retryLines[0] ? ` ("${e.retryLines[0].slice(0, 80)}")` : ''}`
  );
}

export function buildAdmissionChecks(deps: AdmissionCheckDeps = {}): Check[] {
  const timings = deps.admissionTimings ?? readShortAdmissionOptions();
  const ctx: AdmissionContext = { parts: { ...REAL_ADMISSION_PARTS, ...deps.admissionParts }, timings };
  const quota = sharedScenario((signal) => clientQuota(ctx, signal));
  // A lock wait of its own per attempt, the hold, and the databases: a few lock waits plus slack.
  const lockWaitTimeoutMs = 30 * SECOND + 4 * timings.lockWaitSeconds * SECOND;

  // The course's form first: the lab's are measured against it. All three, by the same judges.
  return [
    ...FORMS.flatMap((form) => burstChecks(ctx, form)),
    ...fullServiceChecks(ctx),
    defineCheck({
      id: 'client-quota-answers-429',
      name: `With a client quota of ${QUOTA.quota}, a client sending ${QUOTA.aliceSends} at once gets ${QUOTA.quota} × 202 and the rest 429 client-quota-exceeded with Retry-After; another client still gets 202`,
      timeoutMs: 30 * SECOND,
      scenario: quota,
      judge: (e) => {
        const accepted = withStatus(e.alice, 202);
        const limited = withStatus(e.alice, 429);
        const wrong = limited.filter((a) => !refusedAs(a, 429, 'client-quota-exceeded', e.rules.retryAfterSeconds));
        const aliceBefore = e.readings
          .filter((r) => r.clientId === 'alice')
          .map((r) => r.clientActiveBefore ?? 'none')
          .join(',');
        const seen =
          `quota ${e.rules.clientQuota}: alice sent ${e.alice.length} at once: ${tally(e.alice.map((a) => a.status))}; ${describeRefusals(limited, 429)}; ` +
          `the gate read alice's active jobs as ${aliceBefore || 'nothing'}; then bob: ${e.bob.status}${e.bob.error ? ` ${e.bob.error}` : ''}; ` +
          `jobs: alice ${e.jobsByClient.alice ?? 0}, bob ${e.jobsByClient.bob ?? 0}${unexpected(e.otherLog)}`;
        const ok =
          accepted.length === QUOTA.quota &&
          limited.length === e.alice.length - QUOTA.quota &&
          wrong.length === 0 &&
          e.bob.status === 202 &&
          e.jobsByClient.alice === QUOTA.quota &&
          e.jobsByClient.bob === 1;
        return outcome(ok, seen);
      },
    }),
    defineCheck({
      id: 'client-quota-off-by-default',
      name: `With the default rules (no client quota), one client sending ${QUOTA.carolSends} at once gets ${QUOTA.carolSends} × 202`,
      timeoutMs: 30 * SECOND,
      scenario: quota,
      judge: (e) =>
        outcome(
          withStatus(e.carol, 202).length === e.carol.length && e.jobsByClient.carol === e.carol.length,
          `default rules: carol sent ${e.carol.length} at once: ${tally(e.carol.map((a) => a.status))}` +
            `${e.carol.some((a) => a.error) ? ` (${tally(e.carol.map((a) => a.error).filter(Boolean))})` : ''}; carol has ${e.jobsByClient.carol ?? 0} jobs${unexpected(e.otherLog)}`,
        ),
    }),
    defineCheck({
      id: 'lock-wait-retried-then-admitted',
      name: 'A POST that meets the gate locked by another session past the lock wait (1205) is rolled back and run again, and answers 202 once the gate is free: never a 500',
      timeoutMs: lockWaitTimeoutMs,
      scenario: (signal) => lockWaitRetried(ctx, signal),
      judge: (e) => {
        const ok =
          e.answer.status === 202 &&
          (e.reading?.attempts ?? 0) >= 2 &&
          e.retryLines.length >= 1 &&
          e.ofJob?.jobs === 1 &&
          e.ofJob.events === 1;
        const rows = e.ofJob ? `; its job: ${e.ofJob.jobs} row, ${e.ofJob.events} event` : '';
        return outcome(ok, `${describeLockWait(e)}${rows}${unexpected(e.otherLog)}`);
      },
    }),
    defineCheck({
      id: 'lock-wait-exhausted-503-nothing-created',
      name: `A POST that meets the gate locked through every retry (${EXHAUSTED_RETRIES} retry here) answers 503 admission-busy with Retry-After, and creates no job and no event`,
      timeoutMs: lockWaitTimeoutMs,
      scenario: (signal) => lockWaitExhausted(ctx, signal),
      judge: (e) => {
        const ok =
          refusedAs(e.answer, 503, 'admission-busy', e.rules.retryAfterSeconds) &&
          e.after.jobs === e.before.jobs &&
          e.after.events === e.before.events;
        return outcome(
          ok,
          `${describeLockWait(e)}; jobs ${e.before.jobs} -> ${e.after.jobs}, events ${e.before.events} -> ${e.after.events}${unexpected(e.otherLog.filter((l) => !l.startsWith('503 admission-busy')))}`,
        );
      },
    }),
  ];
}

// ---------------------------------------------------------------------------------
// A full service with the gate held: refused early, or only under the lock.

function describeFullService(e: FullServiceEvidence): string {
  const a = e.answer;
  const filled = e.filling ? `${e.filling.status}${e.filling.jobId ? ` (job ${short(e.filling.jobId)})` : ''}` : 'none';
  const answered = `${a.status} ${a.error ?? ''}${a.retryAfter ? ` with Retry-After ${a.retryAfter}` : ' without Retry-After'}`;
  return (
    `limit ${e.rules.admissionLimit}, filled by one POST (${filled}); early refusal ${e.earlyRefusal}; another session held the gate ` +
    `${seconds(e.heldMs)} (lock wait ${e.lockWaitSeconds} s, ${plural(e.rules.admissionRetries, 'retry', 'retries')}): the next POST answered ${answered} ` +
    `after ${seconds(a.ms)}, ${plural(e.retryLines.length, 'retry line', 'retry lines')} logged; jobs ${e.before.jobs} before, ${e.after.jobs} after${unexpected(e.otherLog)}`
  );
}

function fullServiceChecks(ctx: AdmissionContext): Check[] {
  const timeoutMs = 30 * SECOND + 4 * ctx.timings.lockWaitSeconds * SECOND;
  const filledAndNothingCreated = (e: FullServiceEvidence) =>
    e.filling?.status === 202 && e.before.jobs === 1 && e.after.jobs === e.before.jobs;
  return [
    defineCheck({
      id: 'full-service-refused-before-the-lock',
      name: `A full service (limit ${FULL.limit}, its place taken) answers the next POST 503 capacity-exceeded with Retry-After while another session holds the gate's lock: refused early, it never waits for the lock, retries nothing and creates nothing`,
      timeoutMs,
      scenario: fullServiceWhileGateHeld(ctx, 'on'),
      judge: (e) =>
        outcome(
          filledAndNothingCreated(e) &&
            refusedAs(e.answer, 503, 'capacity-exceeded', e.rules.retryAfterSeconds) &&
            e.retryLines.length === 0,
          describeFullService(e),
        ),
    }),
    defineCheck({
      id: 'course-refusal-waits-for-the-lock',
      name: `With the early refusal off (the course's refusal), the same POST must wait for the gate's lock to learn that the service is full: held through every retry, it ends as 503 admission-busy after ${EXHAUSTED_RETRIES + 1} lock waits, creating nothing`,
      timeoutMs,
      scenario: fullServiceWhileGateHeld(ctx, 'off'),
      judge: (e) =>
        outcome(
          filledAndNothingCreated(e) &&
            refusedAs(e.answer, 503, 'admission-busy', e.rules.retryAfterSeconds) &&
            e.retryLines.length === EXHAUSTED_RETRIES,
          describeFullService(e),
        ),
    }),
  ];
}
