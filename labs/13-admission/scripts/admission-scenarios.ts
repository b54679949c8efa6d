// The experiments behind lesson 13's admission checks. Each one starts the real API
// (startServer, the real admitExport) on a fresh database of its own, sends real HTTP
// requests with fetch, and gathers evidence: the answers, what the gate read under its
// lock (onAdmission), what another session saw meanwhile, and the rows left afterwards.
// The checks (admission-checks.ts) judge it. The parts a check may break are the admission
// itself and the early refusal before it (AdmissionParts), so the can-fail tests run the
// same experiment with a broken one.
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { errorMessage, sleep, waitFor, withResources, type Resources } from '@tasks-lab/lab-kit';
import { COUNT_JOB_AND_EVENTS } from '@tasks-lab/12-outbox';
import { admitExport, COURSE_RULES, type Admission, type AdmissionRules } from '../src/admission.ts';
import { COUNT_ORPHANS, LOCK_GATE } from '../src/admission-queries.ts';
import { CLIENT_ID_HEADER } from '../src/admission.ts';
import { refuseEarlyWhenFull } from '../src/early-refusal.ts';
import { freshDatabase, openJobsDatabase } from '../src/database.ts';
import { countActiveJobs, readGateCounter } from '../src/gate.ts';
import type { AdmissionOptionValues, GateDesign } from '../src/options.ts';
import { startServer } from '../src/server.ts';

/** The parts a check may break: how a submission is admitted, and how a full service is refused before it (the app's `admit` and `refuseEarly`). */
export interface AdmissionParts {
  admit: typeof admitExport;
  refuseEarly: typeof refuseEarlyWhenFull;
}

export const REAL_ADMISSION_PARTS: AdmissionParts = { admit: admitExport, refuseEarly: refuseEarlyWhenFull };

export interface AdmissionContext {
  parts: AdmissionParts;
  /** The database session's settings (the lock wait above all) come from here. */
  timings: AdmissionOptionValues;
}

const PRODUCTS = [1, 2];

/**
 * The rules of every experiment: the course's (limit 100, no quota, Retry-After 5), then
 * the experiment's own changes. Never the environment's: a CLIENT_QUOTA the student set
 * for `pnpm start` must not change what verify grades.
 */
const rulesWith = (changes: Partial<AdmissionRules>): AdmissionRules => ({ ...COURSE_RULES, ...changes });

// Rows a check counts after an experiment. Named, and without parameters: they read the
// whole (fresh) database of one experiment.
/** Every job and every event, whatever their state. Rows: 1. */
const COUNT_ALL_ROWS = `
  SELECT (SELECT COUNT(*) FROM export_jobs) AS jobs,
         (SELECT COUNT(*) FROM export_outbox) AS events`;
/** Each job with how many events it has (a 202's job must have its event). Rows: one per job. */
const JOBS_WITH_EVENTS = `
  SELECT j.id, (SELECT COUNT(*) FROM export_outbox o WHERE o.job_id = j.id) AS events
  FROM export_jobs j`;
/** Jobs per client (the Client-Id the admission recorded). Rows: one per client. */
const JOBS_BY_CLIENT = `
  SELECT client_id, COUNT(*) AS jobs
  FROM export_jobs
  GROUP BY client_id`;

// ---------------------------------------------------------------------------------
// The pieces every experiment uses

interface Experiment {
  /** The API's pool: what the app and its admissions use. */
  pool: Pool;
  /** Another pool on the same database, for the sampler, the lock holder and the counts: never the app's connections. */
  observer: Pool;
}

/**
 * A fresh database (dropped with the scope), the app's pool on it with `connections`
 * connections, and an observer's pool of its own.
 */
async function openExperiment(
  ctx: AdmissionContext,
  res: Resources,
  label: string,
  connections: number,
): Promise<Experiment> {
  const db = await freshDatabase(label, { settings: ctx.timings, connectionLimit: connections });
  res.defer(() => db.drop());
  const observer = await openJobsDatabase({ database: db.name, settings: ctx.timings, connectionLimit: 3 });
  res.add(observer, (p) => p.end());
  return { pool: db.pool, observer };
}

interface RunningApi {
  url: string;
  /** Every admission the app reported after its COMMIT (its onAdmission), in order. */
  admissions: Admission[];
  /** The app's log lines (retries, refusals, unexpected errors). */
  log: string[];
}

/** The real app on a free port, with the context's `admit`; `rules` undefined = the app's defaults. Closed with the scope. */
async function startApi(
  ctx: AdmissionContext,
  res: Resources,
  pool: Pool,
  rules: Partial<AdmissionRules> | undefined,
): Promise<RunningApi> {
  const admissions: Admission[] = [];
  const log: string[] = [];
  const server = await startServer(0, {
    pool,
    // No publisher runs here: the nudge is a no-op, and the events stay unsent (they are counted, not sent).
    nudge: async () => 0,
    rules,
    admit: ctx.parts.admit,
    refuseEarly: ctx.parts.refuseEarly,
    onAdmission: (admission) => admissions.push(admission),
    log: (line) => log.push(line),
  });
  res.add(server, (s) => s.close());
  return { url: server.url, admissions, log };
}

/** One answer of POST /exports, as the client saw it. */
export interface Answer {
  status: number;
  /** The error body's `error` code (capacity-exceeded, ...); undefined for a 202. */
  error: string | undefined;
  /** The Retry-After header, as sent; null when there is none. */
  retryAfter: string | null;
  /** The job id of a 202. */
  jobId: string | undefined;
  /** When the answer arrived, from the moment the request was sent. */
  ms: number;
}

async function postExport(url: string, signal: AbortSignal, clientId?: string): Promise<Answer> {
  const started = Date.now();
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (clientId !== undefined) headers[CLIENT_ID_HEADER] = clientId;
  const response = await fetch(`${url}/exports`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ product_ids: PRODUCTS }),
    signal,
  });
  const text = await response.text();
  let body: { id?: unknown; error?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // Not JSON: the status says enough.
  }
  return {
    status: response.status,
    error: typeof body.error === 'string' ? body.error : undefined,
    retryAfter: response.headers.get('retry-after'),
    jobId: response.status === 202 && typeof body.id === 'string' ? body.id : undefined,
    ms: Date.now() - started,
  };
}

/** `count` requests at once (none waits for another's answer). */
const postAtOnce = (url: string, count: number, signal: AbortSignal, clientId?: string) =>
  Promise.all(Array.from({ length: count }, () => postExport(url, signal, clientId)));

async function countAllRows(db: Pool): Promise<{ jobs: number; events: number }> {
  const [rows] = await db.query<RowDataPacket[]>(COUNT_ALL_ROWS);
  return { jobs: Number(rows[0]?.jobs), events: Number(rows[0]?.events) };
}

async function countJobAndEvents(db: Pool, jobId: string): Promise<{ jobs: number; events: number }> {
  const [rows] = await db.query<RowDataPacket[]>(COUNT_JOB_AND_EVENTS, [jobId, jobId]);
  return { jobs: Number(rows[0]?.jobs), events: Number(rows[0]?.events) };
}

/** The reading an admission reported, without the job's details. */
export type Reading = Pick<
  Admission,
  'design' | 'activeBefore' | 'limit' | 'clientId' | 'clientActiveBefore' | 'attempts' | 'group'
>;
const readingOf = (a: Admission): Reading => ({
  design: a.design,
  activeBefore: a.activeBefore,
  limit: a.limit,
  clientId: a.clientId,
  clientActiveBefore: a.clientActiveBefore,
  attempts: a.attempts,
  group: a.group,
});

// ---------------------------------------------------------------------------------
// 1. A burst: 50 requests at once against a limit of 5, once per gate design

export const BURST = { limit: 5, requests: 50 } as const;
/**
 * The app's pool in the burst: more connections than the limit (several API processes'
 * worth), so the requests reach the database together instead of queueing in the pool.
 * With only as many connections as the limit, a gate that counts without the lock could
 * still look right: each wave of transactions would be one limit's worth.
 */
const BURST_CONNECTIONS = 20;
/** How often the sampler counts the queued and running jobs from another session. */
const SAMPLE_EVERY_MS = 2;

/**
 * What the burst runs with: a gate design, and whether a full service is refused early (without
 * the gate's lock). The course's form is ('count', 'off'); the lab's default ('counter', 'on').
 */
export interface AdmissionForm {
  design: GateDesign;
  earlyRefusal: 'on' | 'off';
  /** ADMISSION_GROUP_MAX: 1, every admission alone; more, admissions that arrive together share a transaction. */
  groupMax: number;
}

export interface BurstEvidence extends AdmissionForm {
  rules: AdmissionRules;
  answers: Answer[];
  /** What the gate read under its lock, one per admission (the app's onAdmission). */
  readings: Reading[];
  /** The most queued + running jobs another session saw, polling during the burst (and once after it). */
  sampled: { max: number; samples: number; errors: string[] };
  after: {
    jobs: number;
    events: number;
    jobsWithoutEvent: number;
    eventsWithoutJob: number;
    gateCounter: number;
    activeJobs: number;
    /** The job ids of the 202s that have no row, or no event. */
    acceptedButMissing: string[];
  };
  /** The app's log lines that are not a 503 refusal (an unexpected error shows here). */
  otherLog: string[];
  /** From the first request sent to the last answer. */
  ms: number;
}

/** Counts the queued and running jobs in a loop, on the observer's connection, until stopped; keeps the largest. */
function startSampler(observer: Pool): { stop: () => Promise<BurstEvidence['sampled']> } {
  let stopping = false;
  const sampled = { max: 0, samples: 0, errors: [] as string[] };
  const sample = async () => {
    try {
      sampled.max = Math.max(sampled.max, await countActiveJobs(observer));
      sampled.samples += 1;
    } catch (err) {
      if (sampled.errors.length < 3) sampled.errors.push(errorMessage(err));
    }
  };
  const loop = (async () => {
    while (!stopping) {
      await sample();
      await sleep(SAMPLE_EVERY_MS);
    }
  })();
  let stopped: Promise<BurstEvidence['sampled']> | undefined;
  return {
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        await loop;
        await sample(); // right after the last answer: what the burst left
        return sampled;
      })()),
  };
}

/** The burst in one form; the same evidence, and the same judges, for every form. */
export function burst(ctx: AdmissionContext, form: AdmissionForm): (signal: AbortSignal) => Promise<BurstEvidence> {
  const { design, earlyRefusal, groupMax } = form;
  return (signal) =>
    withResources(signal, async (res) => {
      const name = `burst${design}${earlyRefusal}${groupMax}`;
      const { pool, observer } = await openExperiment(ctx, res, name, BURST_CONNECTIONS);
      const rules = rulesWith({
        admissionLimit: BURST.limit,
        admissionGate: design,
        earlyRefusal,
        admissionGroupMax: groupMax,
      });
      const api = await startApi(ctx, res, pool, rules);
      const sampler = startSampler(observer);
      res.defer(() => sampler.stop()); // stopped before the observer's pool ends, whatever happens
      const started = Date.now();
      const answers = await postAtOnce(api.url, BURST.requests, res.signal);
      const ms = Date.now() - started;
      const sampled = await sampler.stop();
      const [orphans] = await observer.query<RowDataPacket[]>(COUNT_ORPHANS);
      const [jobs] = await observer.query<RowDataPacket[]>(JOBS_WITH_EVENTS);
      const eventsOf = new Map(jobs.map((row) => [String(row.id), Number(row.events)]));
      const accepted = answers.flatMap((a) => (a.jobId ? [a.jobId] : []));
      return {
        ...form,
        rules,
        answers,
        readings: api.admissions.map(readingOf),
        sampled,
        after: {
          ...(await countAllRows(observer)),
          jobsWithoutEvent: Number(orphans[0]?.jobs_without_event),
          eventsWithoutJob: Number(orphans[0]?.events_without_job),
          gateCounter: await readGateCounter(observer),
          activeJobs: await countActiveJobs(observer),
          acceptedButMissing: accepted.filter((id) => (eventsOf.get(id) ?? 0) < 1),
        },
        otherLog: api.log.filter((line) => !line.startsWith('503 capacity-exceeded')),
        ms,
      };
    });
}

// ---------------------------------------------------------------------------------
// 2. The per-client quota: on (2 per client), and off (the default)

export const QUOTA = { quota: 2, aliceSends: 5, carolSends: 5 } as const;

export interface QuotaEvidence {
  /** The rules of the server with the quota on; the other one runs with the app's defaults. */
  rules: AdmissionRules;
  /** Quota on: alice's requests, all at once. */
  alice: Answer[];
  /** Quota on: bob's one request, after alice's answers. */
  bob: Answer;
  /** Quota off (the app's default rules): carol's requests, all at once. */
  carol: Answer[];
  /** Readings of the quota-on server's admissions (clientActiveBefore is the quota's count). */
  readings: Reading[];
  /** Jobs per client afterwards. */
  jobsByClient: Record<string, number>;
  otherLog: string[];
}

export async function clientQuota(ctx: AdmissionContext, signal: AbortSignal): Promise<QuotaEvidence> {
  return withResources(signal, async (res) => {
    const { pool, observer } = await openExperiment(ctx, res, 'quota', 10);
    const rules = rulesWith({ clientQuota: QUOTA.quota });
    const withQuota = await startApi(ctx, res, pool, rules);
    const alice = await postAtOnce(withQuota.url, QUOTA.aliceSends, res.signal, 'alice');
    const bob = await postExport(withQuota.url, res.signal, 'bob');
    // The same database, a server with no rules of its own: whatever the app does by default.
    const byDefault = await startApi(ctx, res, pool, undefined);
    const carol = await postAtOnce(byDefault.url, QUOTA.carolSends, res.signal, 'carol');
    const [clients] = await observer.query<RowDataPacket[]>(JOBS_BY_CLIENT);
    const refusalLine = /^(429 client-quota-exceeded|503 capacity-exceeded)/;
    return {
      rules,
      alice,
      bob,
      carol,
      readings: withQuota.admissions.map(readingOf),
      jobsByClient: Object.fromEntries(clients.map((row) => [String(row.client_id), Number(row.jobs)])),
      otherLog: [...withQuota.log, ...byDefault.log].filter((line) => !refusalLine.test(line)),
    };
  });
}

// ---------------------------------------------------------------------------------
// 3. The gate held by another session: a lock-wait timeout is retried, never a 500

export interface LockWaitEvidence {
  rules: AdmissionRules;
  lockWaitSeconds: number;
  /** How long the other session held the gate's lock. */
  heldMs: number;
  answer: Answer;
  /** What the gate read when it finally admitted the job (attempts), if it did. */
  reading: Reading | undefined;
  /** The app's "trying again" lines. */
  retryLines: string[];
  otherLog: string[];
  /** Every job and event in the database, before the POST and after the lock was released. */
  before: { jobs: number; events: number };
  after: { jobs: number; events: number };
  /** The answered job's own rows (a 202's). */
  ofJob: { jobs: number; events: number } | undefined;
}

/** The app's line for a lock conflict it rolled back and tries again (app.ts's onRetry). */
const RETRY_LINE = /trying again/;

/**
 * Another session locks the gate row (the same LOCK_GATE an admission takes) and keeps
 * its transaction open while one POST runs; `holdWhile` returns when it should roll back
 * (and so let the admission through, if it is still trying).
 */
async function postWhileGateHeld(
  ctx: AdmissionContext,
  res: Resources,
  label: string,
  rules: AdmissionRules,
  holdWhile: (post: Promise<Answer>, api: RunningApi) => Promise<unknown>,
  /** Runs before the gate is locked (the early-refusal experiment fills the service here). */
  prepare?: (api: RunningApi) => Promise<unknown>,
): Promise<LockWaitEvidence> {
  const { pool, observer } = await openExperiment(ctx, res, label, 5);
  const api = await startApi(ctx, res, pool, rules);
  await prepare?.(api);
  const before = await countAllRows(observer);
  const holder = await observer.getConnection();
  let post: Promise<Answer> | undefined;
  let heldMs = 0;
  try {
    await holder.beginTransaction();
    await holder.query(LOCK_GATE);
    const held = Date.now();
    post = postExport(api.url, res.signal);
    post.catch(() => {}); // awaited below: a failure must not count as unhandled while the lock is held
    await holdWhile(post, api);
    heldMs = Date.now() - held;
  } finally {
    await holder.rollback().catch(() => {});
    holder.release();
  }
  const answer = await post;
  const admission = api.admissions.find((a) => a.jobId === answer.jobId);
  return {
    rules,
    lockWaitSeconds: ctx.timings.lockWaitSeconds,
    heldMs,
    answer,
    reading: admission && readingOf(admission),
    retryLines: api.log.filter((line) => RETRY_LINE.test(line)),
    otherLog: api.log.filter((line) => !RETRY_LINE.test(line)),
    before,
    after: await countAllRows(observer),
    ofJob: answer.jobId ? await countJobAndEvents(observer, answer.jobId) : undefined,
  };
}

/**
 * (a) The gate is held until the POST's first attempt has timed out (1205, after one lock
 * wait) and been rolled back (the app logs its retry), then half a lock wait more: the
 * next attempt is waiting for the lock by then, and gets it when the holder rolls back.
 * Holding until the retry, rather than for a fixed time, keeps a slow start from letting
 * the first attempt through. Default retries (3), the lab's gate design.
 */
export async function lockWaitRetried(ctx: AdmissionContext, signal: AbortSignal): Promise<LockWaitEvidence> {
  const lockWaitMs = ctx.timings.lockWaitSeconds * 1000;
  return withResources(signal, (res) =>
    postWhileGateHeld(ctx, res, 'lockretry', rulesWith({}), async (post, api) => {
      let answered = false;
      void post.finally(() => (answered = true)).catch(() => {});
      const retriedOrAnswered = () => answered || api.log.some((line) => RETRY_LINE.test(line));
      await waitFor('a retry or an answer', retriedOrAnswered, {
        timeoutMs: 3 * lockWaitMs,
        intervalMs: 10,
        signal: res.signal,
      }).catch(() => {});
      if (!answered) await sleep(lockWaitMs / 2, res.signal);
    }),
  );
}

/** (b)'s retries: one, so every attempt (2 lock waits and a pause) fits in a few seconds. */
export const EXHAUSTED_RETRIES = 1;

/**
 * (b) The gate is held until the POST has answered (longer than every attempt's lock
 * wait together): it must answer 503 admission-busy, and leave no row behind. The hold
 * has a bound, so an admission that never gives up is still answered (after the release).
 */
export async function lockWaitExhausted(ctx: AdmissionContext, signal: AbortSignal): Promise<LockWaitEvidence> {
  const rules = rulesWith({ admissionRetries: EXHAUSTED_RETRIES });
  const boundMs = (rules.admissionRetries + 1) * ctx.timings.lockWaitSeconds * 1000 + 3000;
  return withResources(signal, (res) =>
    postWhileGateHeld(ctx, res, 'lockbusy', rules, (post) =>
      Promise.race([post.catch(() => undefined), sleep(boundMs, res.signal)]),
    ),
  );
}

// ---------------------------------------------------------------------------------
// 4. A full service, refused early or under the lock

/** The early-refusal experiment: a limit of 1, filled by one POST before the gate is locked. */
export const FULL = { limit: 1 } as const;

export interface FullServiceEvidence extends LockWaitEvidence {
  earlyRefusal: 'on' | 'off';
  /** The POST that filled the service (a 202). */
  filling: Answer | undefined;
}

/**
 * The service is full (its one place taken), and another session holds the gate's lock while
 * one more POST runs, up to every attempt's lock wait: with the early refusal the POST is
 * answered 503 capacity-exceeded without meeting the lock; with the course's refusal it waits
 * for the lock to learn what the counter already said, and (held through every retry) ends as
 * 503 admission-busy. Either way nothing is created.
 */
export function fullServiceWhileGateHeld(
  ctx: AdmissionContext,
  earlyRefusal: 'on' | 'off',
): (signal: AbortSignal) => Promise<FullServiceEvidence> {
  const rules = rulesWith({ admissionLimit: FULL.limit, admissionRetries: EXHAUSTED_RETRIES, earlyRefusal });
  const boundMs = (rules.admissionRetries + 1) * ctx.timings.lockWaitSeconds * 1000 + 3000;
  return (signal) =>
    withResources(signal, async (res) => {
      let filling: Answer | undefined;
      const evidence = await postWhileGateHeld(
        ctx,
        res,
        `full${earlyRefusal}`,
        rules,
        (post) => Promise.race([post.catch(() => undefined), sleep(boundMs, res.signal)]),
        async (api) => {
          filling = await postExport(api.url, res.signal);
        },
      );
      return { ...evidence, earlyRefusal, filling };
    });
}
