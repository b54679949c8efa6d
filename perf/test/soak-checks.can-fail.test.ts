// Every soak invariant passes on a healthy run's evidence and FAILS on evidence broken the way a
// real defect would break it (a job left open, a second success, an artifact that differs, ...).
// Pure: the evidence is built here; `pnpm soak` gathers the real thing.
import { describe, expect, it } from 'vitest';
import { SOAK_CHECKS } from '../scripts/soak-checks.ts';
import { FAULT_KINDS } from '../scripts/soak-plan.ts';
import type { JobSeen, SoakEvidence, SubmissionSeen } from '../scripts/soak-scenario.ts';

const SEED = 7;
const id = (i: number) => `${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`;

function healthy(): SoakEvidence {
  const statuses = ['succeeded', 'succeeded', 'succeeded', 'failed', 'cancelled'] as const;
  const jobs: JobSeen[] = statuses.map((status, i) => ({
    id: id(i),
    status,
    attempts: i === 1 ? 2 : 1,
    idempotencyKey: `soak-${SEED}-${i}`,
    errorCode: status === 'failed' ? 'deadline_exceeded' : null,
    events: i === 1 ? 2 : 1,
    deadLetters: status === 'failed' ? 1 : 0,
    verdict: status === 'succeeded' ? 'artifact-verified' : 'terminal-without-artifact',
    problems: [],
  }));
  const submissions: SubmissionSeen[] = jobs.map((job, i) => ({
    index: i,
    key: `soak-${SEED}-${i}`,
    requests: i === 2 ? 2 : 1,
    noAnswer: i === 2 ? 1 : 0,
    statuses: { '202': 1 },
    jobId: job.id,
    ...(i === 4 ? { cancelAnswers: { '503': 1, '202': 1 } } : {}),
  }));
  return {
    seed: SEED,
    profile: 'ci',
    timings: {
      leaseMs: 1500,
      recoveryScanMs: 200,
      unclaimedThresholdMs: 1000,
      deadlineMs: 20_000,
      maxAttempts: 3,
      admissionLimit: 40,
    },
    submissions,
    faults: FAULT_KINDS.map((kind, i) => ({
      index: i,
      kind,
      target: 0,
      atMs: i * 1000,
      holdMs: 500,
      startedAtMs: i * 1000,
      healedAtMs: i * 1000 + 600,
    })),
    unexpectedExits: [],
    jobs,
    successLines: { [id(0)]: 1, [id(1)]: 1, [id(2)]: 1 },
    admissions: jobs.map((job, i) => ({ jobId: job.id, activeBefore: i, limit: 40 })),
    maxActiveSampled: 12,
    settle: { quietMs: 10_200, boundMs: 20_200, waitedMs: 10_300, openAfter: 0 },
    leakedSecrets: 0,
    loadMs: 20_000,
    totalMs: 60_000,
    outputs: { api: '{"event":"export_phase"}' },
  };
}

type Breaker = (e: SoakEvidence) => void;
const job = (e: SoakEvidence, i: number) => e.jobs[i]!;

/** For every invariant, ways a real defect would show in the evidence. */
const BROKEN: Record<string, Record<string, Breaker>> = {
  'every-accepted-job-terminal': {
    'a job still queued': (e) => void (job(e, 0).status = 'queued'),
    'a submission never accepted': (e) =>
      void ((e.submissions[1]!.jobId = undefined), (e.submissions[1]!.gaveUp = 'no 202 in 90 s')),
  },
  'at-most-one-success-per-job': {
    'two success lines for one job': (e) => void (e.successLines[id(0)] = 2),
    'a success line for a failed job': (e) => void (e.successLines[id(3)] = 1),
    'no success lines read at all': (e) => void (e.successLines = {}),
  },
  'artifacts-equal-snapshots': {
    'an artifact differs from its snapshot': (e) =>
      void ((job(e, 0).verdict = 'mismatch'), (job(e, 0).problems = ['row 1: price_cents differs'])),
    'a failed job names an artifact': (e) => void (job(e, 3).verdict = 'mismatch'),
  },
  'attempts-bounded': {
    'a job ran four times': (e) => void (job(e, 1).attempts = 4),
  },
  'gate-never-over-limit': {
    'an admission read the limit': (e) => void (e.admissions[2]!.activeBefore = 40),
    'the table held more than the limit': (e) => void (e.maxActiveSampled = 41),
    'the admissions were not logged': (e) => void (e.admissions = []),
  },
  'one-dead-letter-per-failed-job': {
    'a failed job without a dead letter': (e) => void (job(e, 3).deadLetters = 0),
    'a succeeded job with a dead letter': (e) => void (job(e, 0).deadLetters = 1),
  },
  'every-202-has-its-row-and-event': {
    'a 202 whose row is missing': (e) => void e.jobs.splice(0, 1),
    'a row without its event': (e) => void (job(e, 2).events = 0),
    'a row no client asked for': (e) => void e.jobs.push({ ...job(e, 0), id: id(99), idempotencyKey: null }),
  },
  'cancelled-never-published': {
    'a cancelled job with a success line': (e) => void (e.successLines[id(4)] = 1),
    'a cancelled job with an artifact': (e) => void (job(e, 4).verdict = 'mismatch'),
    'no cancel was asked': (e) => void delete e.submissions[4]!.cancelAnswers,
  },
  'unanswered-client-ends-with-one-job': {
    'the retry made a second job': (e) => void e.jobs.push({ ...job(e, 2), id: id(98) }),
    'the 202 named another job': (e) => void (e.submissions[2]!.jobId = id(0)),
    'no request went unanswered': (e) => void (e.submissions[2]!.noAnswer = 0),
  },
  'no-server-error': {
    'a submission answered 500': (e) => void (e.submissions[0]!.statuses['500'] = 1),
    'a cancel answered 500, then 202': (e) => void (e.submissions[4]!.cancelAnswers = { '500': 1, '202': 1 }),
  },
  'faults-all-ran': {
    'a fault failed': (e) => void (e.faults[3]!.error = 'redis did not restart'),
    'a fault never healed': (e) => void delete e.faults[0]!.healedAtMs,
    'a kind never ran': (e) => void (e.faults = e.faults.filter((f) => f.kind !== 'stop-broker')),
  },
  'components-exit-only-when-killed': {
    'a worker crashed on its own': (e) =>
      void e.unexpectedExits.push({
        component: 'worker 0 (fast)',
        atMs: 3000,
        exit: 'code 1',
        lastLines: 'Error: Connection is closed.',
      }),
  },
  'no-credential-in-output': {
    'a password was printed': (e) => void (e.leakedSecrets = 1),
    'no output was read': (e) => void (e.outputs = {}),
  },
};

describe('the soak invariants', () => {
  it('every invariant has its broken variants here', () => {
    expect(Object.keys(BROKEN).sort()).toEqual(SOAK_CHECKS.map((c) => c.id).sort());
  });

  for (const check of SOAK_CHECKS) {
    it(`${check.id} passes on a healthy run`, () => {
      const result = check.judge(healthy());
      expect(result.observed).toBeTruthy();
      expect(result.ok, result.observed).toBe(true);
    });
    for (const [how, breakIt] of Object.entries(BROKEN[check.id] ?? {})) {
      it(`${check.id} fails when ${how}`, () => {
        const evidence = healthy();
        breakIt(evidence);
        const result = check.judge(evidence);
        expect(result.ok, result.observed).toBe(false);
      });
    }
  }
});
