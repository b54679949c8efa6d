// The soak's invariants: the course's claims (no lost job, no double publication, bounded
// attempts, capacity never exceeded, every failure explained) judged on what ONE soak run
// gathered (scripts/soak-scenario.ts). Each judge is pure: it reads the evidence and says what
// it counted. test/soak-checks.can-fail.test.ts breaks every one of them on purpose.
import { outcome, type CheckOutcome } from '@tasks-lab/lab-kit';
import { FAULT_KINDS } from './soak-plan.ts';
import type { JobSeen, SoakEvidence } from './soak-scenario.ts';

export interface SoakCheck {
  id: string;
  name: string;
  judge: (e: SoakEvidence) => CheckOutcome;
}

const OPEN = new Set(['queued', 'running']);
/** "3 (a1b2c3d4…, e5f6a7b8…)": a count and the first few ids, cut short. */
const some = (ids: readonly string[]) =>
  `${ids.length}${
    ids.length > 0
      ? ` (${ids
          .slice(0, 3)
          .map((id) => `${id.slice(0, 8)}…`)
          .join(', ')}${ids.length > 3 ? ', …' : ''})`
      : ''
  }`;
const byStatus = (jobs: readonly JobSeen[]) => {
  const counts: Record<string, number> = {};
  for (const job of jobs) counts[job.status] = (counts[job.status] ?? 0) + 1;
  return Object.entries(counts)
    .map(([status, n]) => `${status} ${n}`)
    .join(', ');
};

export const SOAK_CHECKS: readonly SoakCheck[] = [
  {
    id: 'every-accepted-job-terminal',
    name: 'Every accepted job reaches a terminal state: none still queued or running after settling, and every planned submission got its 202',
    judge: (e) => {
      const open = e.jobs.filter((j) => OPEN.has(j.status)).map((j) => j.id);
      const gaveUp = e.submissions.filter((s) => s.jobId === undefined);
      const ok = open.length === 0 && gaveUp.length === 0 && e.jobs.length > 0;
      return outcome(
        ok,
        `${e.jobs.length} jobs: ${byStatus(e.jobs)}; still open ${some(open)}; submissions without a 202 ${gaveUp.length}` +
          `${gaveUp[0]?.gaveUp ? ` (first: ${gaveUp[0].gaveUp})` : ''}; waited ${(e.settle.waitedMs / 1000).toFixed(1)} s after the faults (at least ${(e.settle.quietMs / 1000).toFixed(1)} s, at most ${(e.settle.boundMs / 1000).toFixed(0)} s)`,
      );
    },
  },
  {
    id: 'at-most-one-success-per-job',
    name: 'At most one successful finish per job in the phase logs, and none for a job that did not succeed',
    judge: (e) => {
      const status = new Map(e.jobs.map((j) => [j.id, j.status]));
      const twice = Object.entries(e.successLines)
        .filter(([, n]) => n > 1)
        .map(([id]) => id);
      const notSucceeded = Object.keys(e.successLines).filter((id) => status.get(id) !== 'succeeded');
      const succeeded = e.jobs.filter((j) => j.status === 'succeeded').length;
      const logged = e.jobs.filter((j) => j.status === 'succeeded' && (e.successLines[j.id] ?? 0) === 1).length;
      // A worker SIGKILLed between its finish's COMMIT and its log line leaves a success without
      // a line: counted, not failed. Fewer lines than half the successes means the logs were not read.
      const ok = twice.length === 0 && notSucceeded.length === 0 && succeeded > 0 && logged * 2 >= succeeded;
      return outcome(
        ok,
        `${succeeded} succeeded, ${logged} with exactly one success line; jobs with 2+ success lines ${some(twice)}; success lines for jobs not succeeded ${some(notSucceeded)}`,
      );
    },
  },
  {
    id: 'artifacts-equal-snapshots',
    name: "Every succeeded job's artifact equals its snapshot by value, and no failed or cancelled job names an artifact",
    judge: (e) => {
      const mismatched = e.jobs.filter((j) => j.verdict === 'mismatch' || j.verdict === 'missing');
      const succeeded = e.jobs.filter((j) => j.status === 'succeeded');
      const verified = succeeded.filter((j) => j.verdict === 'artifact-verified').length;
      const first = mismatched[0];
      return outcome(
        mismatched.length === 0 && verified === succeeded.length && verified > 0,
        `${verified} of ${succeeded.length} succeeded jobs' artifacts verified by value; mismatches ${some(mismatched.map((j) => j.id))}${first ? ` (first: ${first.problems[0] ?? first.verdict})` : ''}`,
      );
    },
  },
  {
    id: 'attempts-bounded',
    name: 'No job ran more often than MAX_ATTEMPTS, however often its worker was killed',
    judge: (e) => {
      const over = e.jobs.filter((j) => j.attempts > e.timings.maxAttempts);
      const max = Math.max(0, ...e.jobs.map((j) => j.attempts));
      const retried = e.jobs.filter((j) => j.attempts > 1).length;
      return outcome(
        over.length === 0 && e.jobs.length > 0,
        `most attempts of any job ${max} (limit ${e.timings.maxAttempts}); ${retried} jobs ran more than once; over the limit ${some(over.map((j) => j.id))}`,
      );
    },
  },
  {
    id: 'gate-never-over-limit',
    name: 'The count the gate read under its lock never reached the limit at any admission, and the table never held more active jobs than the limit',
    judge: (e) => {
      const over = e.admissions.filter((a) => !(a.activeBefore < a.limit));
      const limit = e.timings.admissionLimit;
      const highest = Math.max(0, ...e.admissions.map((a) => a.activeBefore));
      const refused = e.submissions.reduce((n, s) => n + (s.statuses['503'] ?? 0), 0);
      // The API SIGKILLed after a COMMIT and before its log line loses that line: most must be there.
      const logged = e.admissions.length;
      const ok = over.length === 0 && e.maxActiveSampled <= limit && logged * 10 >= e.jobs.length * 9 && logged > 0;
      const grouped = e.admissions.filter((a) => (a.groupSize ?? 1) > 1);
      const largest = Math.max(1, ...grouped.map((a) => a.groupSize ?? 1));
      return outcome(
        ok,
        `${logged} admissions logged for ${e.jobs.length} jobs (${grouped.length} in groups, the largest of ${largest}); highest count read ${highest} of ${limit}; at or over the limit ${some(over.map((a) => a.jobId))}; ` +
          `most active jobs sampled ${e.maxActiveSampled}; 503 answers ${refused}`,
      );
    },
  },
  {
    id: 'one-dead-letter-per-failed-job',
    name: 'Every failed job has exactly one dead letter, and no other job has one',
    judge: (e) => {
      const failed = e.jobs.filter((j) => j.status === 'failed');
      const wrong = failed.filter((j) => j.deadLetters !== 1).map((j) => j.id);
      const stray = e.jobs.filter((j) => j.status !== 'failed' && j.deadLetters > 0).map((j) => j.id);
      const reasons: Record<string, number> = {};
      for (const j of failed) reasons[j.errorCode ?? 'none'] = (reasons[j.errorCode ?? 'none'] ?? 0) + 1;
      const why =
        Object.entries(reasons)
          .map(([code, n]) => `${code} ${n}`)
          .join(', ') || 'none';
      return outcome(
        wrong.length === 0 && stray.length === 0 && e.jobs.length > 0,
        `${failed.length} failed (${why}); without exactly one dead letter ${some(wrong)}; dead letters of jobs not failed ${some(stray)}`,
      );
    },
  },
  {
    id: 'every-202-has-its-row-and-event',
    name: 'No 202 without a row (the same key), and no row without its outbox event',
    judge: (e) => {
      const byId = new Map(e.jobs.map((j) => [j.id, j]));
      const accepted = e.submissions.filter((s) => s.jobId !== undefined);
      const noRow = accepted.filter((s) => byId.get(s.jobId!)?.idempotencyKey !== s.key).map((s) => s.jobId!);
      const noEvent = e.jobs.filter((j) => j.events === 0).map((j) => j.id);
      const strangers = e.jobs
        .filter((j) => j.idempotencyKey === null || !j.idempotencyKey.startsWith(`soak-${e.seed}-`))
        .map((j) => j.id);
      const ok = noRow.length === 0 && noEvent.length === 0 && strangers.length === 0 && accepted.length > 0;
      return outcome(
        ok,
        `${accepted.length} 202 answers; without their row ${some(noRow)}; rows without an event ${some(noEvent)}; rows no client asked for ${some(strangers)}`,
      );
    },
  },
  {
    id: 'cancelled-never-published',
    name: 'No cancelled job published a success',
    judge: (e) => {
      const cancelled = e.jobs.filter((j) => j.status === 'cancelled');
      const published = cancelled
        .filter((j) => (e.successLines[j.id] ?? 0) > 0 || j.verdict !== 'terminal-without-artifact')
        .map((j) => j.id);
      const asked = e.submissions.filter((s) => s.cancelAnswers !== undefined);
      const answers: Record<string, number> = {};
      for (const s of asked)
        for (const [status, n] of Object.entries(s.cancelAnswers!)) answers[status] = (answers[status] ?? 0) + n;
      const ok = published.length === 0 && asked.length > 0;
      return outcome(
        ok,
        `${asked.length} cancels asked (answers: ${
          Object.entries(answers)
            .map(([a, n]) => `${a} ${n}`)
            .join(', ') || 'none'
        }); ${cancelled.length} jobs cancelled; cancelled but published ${some(published)}`,
      );
    },
  },
  {
    id: 'unanswered-client-ends-with-one-job',
    name: 'A client that got no answer retried with its Idempotency-Key and ended with exactly one job, the one its 202 named',
    judge: (e) => {
      const perKey = new Map<string, string[]>();
      for (const j of e.jobs)
        if (j.idempotencyKey) perKey.set(j.idempotencyKey, [...(perKey.get(j.idempotencyKey) ?? []), j.id]);
      const unanswered = e.submissions.filter((s) => s.noAnswer > 0);
      const wrong = unanswered
        .filter((s) => (perKey.get(s.key) ?? []).length !== 1 || perKey.get(s.key)![0] !== s.jobId)
        .map((s) => s.key);
      const retries = unanswered.reduce((n, s) => n + s.noAnswer, 0);
      // Not vacuous: the plan kills the API at least once while clients are sending.
      const ok = wrong.length === 0 && unanswered.length > 0;
      return outcome(
        ok,
        `${unanswered.length} submissions met ${retries} unanswered requests and retried with their key; not exactly one job, the 202's: ${wrong.length}${wrong[0] ? ` (first key ${wrong[0]})` : ''}`,
      );
    },
  },
  {
    id: 'no-server-error',
    name: 'No request was answered 500: a part that is down is a 503 with Retry-After, never an unexplained error',
    judge: (e) => {
      const fiveHundreds = e.submissions.filter((s) =>
        Object.keys(s.statuses).some((status) => Number(status) >= 500 && status !== '503'),
      );
      const statuses: Record<string, number> = {};
      for (const s of e.submissions)
        for (const [status, n] of Object.entries(s.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
      const cancel500 = e.submissions.filter((s) =>
        Object.keys(s.cancelAnswers ?? {}).some((status) => Number(status) >= 500 && status !== '503'),
      ).length;
      return outcome(
        fiveHundreds.length === 0 && cancel500 === 0,
        `answers: ${Object.entries(statuses)
          .map(([s, n]) => `${s} ${n}`)
          .join(
            ', ',
          )}; submissions that met a 5xx other than 503: ${fiveHundreds.length}; cancels answered 5xx: ${cancel500}`,
      );
    },
  },
  {
    id: 'faults-all-ran',
    name: 'Every planned fault ran and was healed, every kind of fault at least once',
    judge: (e) => {
      const healed = e.faults.filter((f) => f.healedAtMs !== undefined && f.error === undefined);
      const failed = e.faults.filter((f) => f.error !== undefined);
      const missingKinds = FAULT_KINDS.filter((kind) => !healed.some((f) => f.kind === kind));
      const ok = healed.length === e.faults.length && missingKinds.length === 0;
      return outcome(
        ok,
        `${healed.length} of ${e.faults.length} faults ran and healed; kinds never run: ${missingKinds.join(', ') || 'none'}${failed[0] ? `; first error: ${failed[0].kind}: ${failed[0].error}` : ''}`,
      );
    },
  },
  {
    id: 'components-exit-only-when-killed',
    name: 'No process of the pipeline died on its own: a broker or database outage is waited out, not crashed on',
    judge: (e) => {
      const first = e.unexpectedExits[0];
      return outcome(
        e.unexpectedExits.length === 0,
        `${e.unexpectedExits.length} unexpected exits${first ? ` (first: ${first.component} at ${(first.atMs / 1000).toFixed(1)} s, ${first.exit}: ${first.lastLines.slice(0, 200)})` : ''}`,
      );
    },
  },
  {
    id: 'no-credential-in-output',
    name: 'No generated password appears in anything the processes printed',
    judge: (e) => {
      const bytes = Object.values(e.outputs).reduce((n, text) => n + text.length, 0);
      return outcome(
        e.leakedSecrets === 0 && bytes > 0,
        `${e.leakedSecrets} passwords found in ${(bytes / 1e6).toFixed(1)} MB of process output`,
      );
    },
  },
];
