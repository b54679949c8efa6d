// The matrix's rows about getting a job in and its wake-up out: the transaction that fails
// before its COMMIT, the broker that is down at submit time, the confirmation that is lost
// after a send, the full service, the result BullMQ no longer keeps, and the closing
// fault-free regression. Each runs on its row's own database and prefix (harness.ts).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { brokerConnection } from '@tasks-lab/08-broker-worker';
import { errorMessage, FAULTS_ENV, faultRule } from '@tasks-lab/lab-kit';
import { artifactName, readJob } from '@tasks-lab/11-mysql-leases';
import { COUNT_JOB_AND_EVENTS, submitFaults } from '@tasks-lab/12-outbox';
import { FAST_QUEUE, readGateCounter } from '@tasks-lab/13-admission';
import { shortId } from './evidence.ts';
import {
  artifactFiles,
  eventsOf,
  FAST_PRODUCTS,
  getExport,
  postExport,
  removeWakeUp,
  reportsFrom,
  sendsOf,
  startRowApi,
  startRowPublisher,
  startRowWorker,
  submit,
  untilState,
  verifyArtifact,
  wakeUpState,
  within,
  type GetAnswer,
  type PostAnswer,
} from './harness.ts';
import { defineRow, Findings, type MatrixRow } from './row.ts';

/** Every job and every event of the row's (fresh) database. Rows returned: 1. Parameters: none. */
export const COUNT_ALL_JOBS_AND_EVENTS = `
  SELECT (SELECT COUNT(*) FROM export_jobs) AS jobs,
         (SELECT COUNT(*) FROM export_outbox) AS events`;

/** The ids of every job of the row's (fresh) database. Rows returned: one per job. Parameters: none. */
export const ALL_JOB_IDS = `SELECT id FROM export_jobs ORDER BY created_at, id`;

/** How long a row waits for a job to reach its end once nothing holds it back. */
const FINISH_WITHIN_MS = 10_000;

async function countAll(pool: Pool): Promise<{ jobs: number; events: number }> {
  const [rows] = await pool.query<RowDataPacket[]>(COUNT_ALL_JOBS_AND_EVENTS);
  return { jobs: Number(rows[0]?.jobs ?? 0), events: Number(rows[0]?.events ?? 0) };
}

/** A port on this machine where nothing listens: a connection to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// ---- 1. the transaction fails before its COMMIT ------------------------------------------

interface AtomicSubmitDetails {
  submit: string;
  injectedFaultReachedCaller: boolean;
  jobs: number;
  events: number;
  gate: { before: number; after: number };
}

export const dbFailsBeforeCommit: MatrixRow = defineRow<AtomicSubmitDetails>('db-fails-before-commit', {
  async scenario(lab) {
    // The id is chosen in advance: the rows are looked for by it after the failure.
    const jobId = randomUUID();
    const gateBefore = await readGateCounter(lab.pool);
    await lab.rec.watch(lab.pool, jobId);
    const rule = faultRule('after-job-insert', 'throw');
    lab.rec.inject(
      `${FAULTS_ENV}=${rule}: the submit throws after the job's INSERT, before its event's and the COMMIT`,
    );
    let submitted: string;
    let reached = false;
    try {
      const admitted = await submit(lab, FAST_PRODUCTS, { jobId, faults: submitFaults({ [FAULTS_ENV]: rule }) });
      submitted = `accepted job ${shortId(admitted.jobId)}`;
    } catch (err) {
      submitted = `threw "${errorMessage(err).slice(0, 120)}"`;
      reached = (err as { code?: unknown }).code === 'fault-injected';
    }
    const [rows] = await lab.pool.query<RowDataPacket[]>(COUNT_JOB_AND_EVENTS, [jobId, jobId]);
    return {
      jobId,
      details: {
        submit: submitted,
        injectedFaultReachedCaller: reached,
        jobs: Number(rows[0]?.jobs),
        events: Number(rows[0]?.events),
        gate: { before: gateBefore, after: await readGateCounter(lab.pool) },
      },
    };
  },
  judge(e) {
    const d = e.details;
    return new Findings()
      .expect(d.injectedFaultReachedCaller, `the submit ${d.submit}`, 'the injected fault to reach the caller')
      .expect(d.jobs === 0, `job rows ${d.jobs}`, '0: the job rolled back')
      .expect(d.events === 0, `outbox rows ${d.events}`, '0: the event rolled back with it')
      .expect(d.gate.after === d.gate.before, `gate counter ${d.gate.before} -> ${d.gate.after}`, 'unchanged')
      .outcome();
  },
});

// ---- 2. the broker is down at submit time --------------------------------------------------

/** Refused sends the row waits for while the broker is down. */
const REFUSED_SENDS = 2;

interface BrokerDownDetails {
  deadPort: number;
  accepted: boolean;
  whileDown: { status: string; unsent: number; sendAttempts: number; lastError: string | null } | null;
  downReports: number;
  after: { status: string; attempts: number; sent: number; events: number };
  verdict: string;
  problems: string[];
}

export const brokerDownAtSubmit: MatrixRow = defineRow<BrokerDownDetails>('broker-down-at-submit', {
  async scenario(lab) {
    const deadPort = await closedPort();
    await startRowWorker(lab, FAST_QUEUE);
    // No reconnecting: each send opens a connection that is refused at once. (With ioredis's
    // default retries, a queue still connecting when the publisher closes would go on
    // reconnecting to the dead port for as long as this process lives.)
    const deadBroker = brokerConnection({ port: deadPort, retryStrategy: () => null });
    const down = await startRowPublisher(lab, { connection: deadBroker, name: 'publisher (broker down)' });
    lab.rec.inject(`the publisher's broker is 127.0.0.1:${deadPort}, where nothing listens (connection refused)`);
    const admitted = await submit(lab, FAST_PRODUCTS);
    await lab.rec.watch(lab.pool, admitted.jobId);
    down.nudge();
    // Each send is refused and the event released with its error; the publisher tries again
    // after the retry delay. Two refused sends: it keeps trying, and keeps the event unsent.
    const failed = await within(
      lab,
      'two refused sends to be recorded',
      async () =>
        (await eventsOf(lab.pool, admitted.jobId)).find((e) => e.lastError !== null && e.sendAttempts >= REFUSED_SENDS),
      REFUSED_SENDS * (lab.timings.pollMs + lab.timings.retryDelayMs + lab.timings.sendTimeoutMs) + 1000,
    );
    const state = lab.rec.latest();
    const whileDown = failed
      ? {
          status: state?.status ?? '?',
          unsent: failed.sentAt === null ? 1 : 0,
          sendAttempts: failed.sendAttempts,
          lastError: failed.lastError,
        }
      : null;
    await down.close();
    const backAt = lab.rec.inject('broker back: a publisher on the lab Redis');
    const up = await startRowPublisher(lab);
    up.nudge();
    // Its first try once the released event is due (the retry delay), at the latest one poll later.
    const succeeded = await untilState(
      lab,
      (s) => s.status === 'succeeded',
      lab.timings.retryDelayMs + lab.timings.pollMs + 4000,
      backAt,
    );
    const events = await eventsOf(lab.pool, admitted.jobId);
    const verdict = await verifyArtifact(lab, admitted.jobId);
    const last = lab.rec.latest();
    return {
      jobId: admitted.jobId,
      recovery: { fromMs: backAt, toMs: succeeded?.at_ms },
      sends: sendsOf(events),
      artifactSha256: verdict.artifactSha256 ?? null,
      workerRan: true,
      details: {
        deadPort,
        accepted: admitted.created,
        whileDown,
        downReports: reportsFrom(lab, 'publisher (broker down)').length,
        after: {
          status: last?.status ?? '?',
          attempts: last?.attempts ?? 0,
          sent: events.filter((ev) => ev.sentAt !== null).length,
          events: events.length,
        },
        verdict: verdict.verdict,
        problems: verdict.problems,
      },
    };
  },
  judge(e) {
    const d = e.details;
    const f = new Findings().expect(
      d.accepted,
      `the job was ${d.accepted ? 'accepted' : 'NOT accepted'} with the broker down`,
      'accepted: the submit never talks to the broker',
    );
    const w = d.whileDown;
    f.expect(
      w !== null && w.status === 'queued' && w.unsent === 1 && w.sendAttempts >= 1 && (w.lastError ?? '') !== '',
      w
        ? `while down: job ${w.status}, event unsent ${w.unsent === 1}, send_attempts ${w.sendAttempts}, last_error "${(w.lastError ?? '').slice(0, 80)}"`
        : 'while down: no failed send was recorded',
      'queued, the event unsent with send_attempts >= 1 and last_error set',
    );
    f.expect(
      d.after.status === 'succeeded' && d.after.sent === d.after.events && d.verdict === 'artifact-verified',
      `broker back: job ${d.after.status} (attempts ${d.after.attempts}), events sent ${d.after.sent}/${d.after.events}, ${d.verdict}${d.problems.length ? ` (${d.problems[0]})` : ''}`,
      'succeeded with its event sent and its artifact verified',
    );
    return f.note(`sends in all ${e.sends ?? 0}`).outcome();
  },
});

// ---- 3. sent, but the confirmation was lost ----------------------------------------------
//
// Two REAL deliveries of one message. The event's first send reaches the worker, which claims,
// writes and publishes; the publisher never confirms it (it stands for one that crashed after
// its send). When its claim on the event has passed, a second publisher sends the event again,
// with the same id. BullMQ would absorb that resend while it still keeps the first wake-up
// (lesson 11's wake-ups stay an hour after completing, and the publisher's claim is 30 s), so
// the worker would see ONE delivery and the row would prove nothing about the worker. Here the
// first wake-up is gone before the resend (completed, then removed: what that hour's retention
// does), as it is whenever the resend comes later than the retention; the resend is then a
// second delivery of the same job, and it is lesson 11's compare-and-set that must refuse it.
//
// No timer is raced: the first publisher is stopped as soon as its confirmation is lost (and
// every confirmation of it throws, so a resend it might make before it stops confirms nothing
// and is absorbed while the first wake-up is still kept); the second starts only after the
// removal, so its resend cannot come early, and the row waits for the second delivery itself.

/** The first publisher: each of its confirmations throws, and it stops after its first one. */
const LOST_CONFIRMATION_PUBLISHER = 'publisher (stops after its send)';
/** The one that sends again once the event's claim has passed. */
const RESENDING_PUBLISHER = 'publisher (sends again)';

interface LostConfirmationDetails {
  eventId: string;
  publishers: { sent: number; confirmed: number; errors: number };
  lostConfirmation: string | null;
  /** The first wake-up in BullMQ before the resend: 'completed' (its result kept), then removed. */
  firstWakeUp: { before: string | null; removed: boolean };
  eventSentAt: string | null;
  /** Every delivery the worker ended, in order: the message id, whether it claimed and published. */
  deliveries: { messageId: string; claimed: boolean; published: boolean; token: string | null; error?: string }[];
  status: string;
  attempts: number;
  resultRef: string | null;
  artifacts: number;
  verdict: string;
}

const describeDelivery = (d: LostConfirmationDetails['deliveries'][number]) =>
  `${d.claimed ? `claimed (token ${shortId(d.token)})` : 'claimed nothing'}${d.error ? `, then failed: ${d.error.slice(0, 80)}` : d.claimed ? `, published ${d.published}` : ''}`;

export const sentNotConfirmed: MatrixRow = defineRow<LostConfirmationDetails>('sent-not-confirmed', {
  async scenario(lab) {
    await startRowWorker(lab, FAST_QUEUE);
    const rule = faultRule('after-send', 'throw', 'always');
    const first = await startRowPublisher(lab, { faults: rule, name: LOST_CONFIRMATION_PUBLISHER });
    lab.rec.inject(`${FAULTS_ENV}=${rule} on the first publisher: its send happens, the confirmation after it throws`);
    const admitted = await submit(lab, FAST_PRODUCTS);
    await lab.rec.watch(lab.pool, admitted.jobId);
    first.nudge();
    const lost = await within(
      lab,
      'the lost confirmation',
      () => reportsFrom(lab, LOST_CONFIRMATION_PUBLISHER).find((r) => r.line.includes(admitted.eventId)),
      5000,
    );
    await first.close();
    if (lost)
      lab.rec.inject(
        'the confirmation was lost and the publisher stopped: the event stays claimed, unsent',
        lab.rec.startedAt + lost.at_ms,
      );
    // The first delivery publishes; BullMQ then keeps its wake-up as completed.
    await untilState(lab, (s) => s.status === 'succeeded', FINISH_WITHIN_MS);
    const before =
      (await within(
        lab,
        'the first wake-up to complete',
        async () => (await wakeUpState(lab, FAST_QUEUE, admitted.eventId)) === 'completed' && 'completed',
        5000,
      )) ?? null;
    lab.rec.inject(
      "action: the first wake-up's completed BullMQ job removed (what its hour of retention does), before the resend",
    );
    const removed = before === 'completed' && (await removeWakeUp(lab, FAST_QUEUE, admitted.eventId));
    // The event's claim passes (claimMs from the first send), then the next poll sends it again.
    const second = await startRowPublisher(lab, { name: RESENDING_PUBLISHER });
    second.nudge();
    const confirmed = await within(
      lab,
      'the event confirmed',
      async () => (await eventsOf(lab.pool, admitted.jobId)).find((ev) => ev.sentAt !== null),
      lab.timings.claimMs + lab.timings.pollMs + 5000,
    );
    const confirmedAt = confirmed ? lab.rec.at() : undefined;
    // The resend's delivery itself: waited for, never assumed from a pause.
    await within(lab, 'the second delivery', () => lab.rec.deliveries.length >= 2, FINISH_WITHIN_MS);
    const events = await eventsOf(lab.pool, admitted.jobId);
    const verdict = await verifyArtifact(lab, admitted.jobId);
    const row = await readJob(lab.pool, admitted.jobId);
    const stats = [first.stats(), second.stats()];
    return {
      jobId: admitted.jobId,
      recovery: { fromMs: lost?.at_ms, toMs: confirmedAt },
      sends: sendsOf(events),
      artifactSha256: verdict.artifactSha256 ?? null,
      workerRan: true,
      details: {
        eventId: admitted.eventId,
        publishers: {
          sent: stats[0]!.sent + stats[1]!.sent,
          confirmed: stats[0]!.confirmed + stats[1]!.confirmed,
          errors: stats[0]!.errors + stats[1]!.errors,
        },
        lostConfirmation: lost?.line ?? null,
        firstWakeUp: { before, removed },
        eventSentAt: confirmed?.sentAt?.toISOString() ?? null,
        deliveries: lab.rec.deliveries.map((d) => ({
          messageId: d.message_id,
          claimed: d.claimed,
          published: d.published,
          token: d.lease_token,
          ...(d.error ? { error: d.error } : {}),
        })),
        status: row?.status ?? 'absent',
        attempts: row?.attempts ?? 0,
        resultRef: row?.resultRef ?? null,
        artifacts: (await artifactFiles(lab)).length,
        verdict: verdict.verdict,
      },
    };
  },
  judge(e) {
    const d = e.details;
    const sends = e.sends ?? 0;
    const [firstDelivery, secondDelivery] = d.deliveries;
    const published = d.deliveries.filter((x) => x.published);
    const publisher = published.length === 1 ? published[0]! : undefined;
    const f = new Findings()
      .expect(
        d.lostConfirmation !== null,
        d.lostConfirmation
          ? 'the first confirmation was lost (the publisher reported it)'
          : 'no lost confirmation was reported',
        'the injected fault to fire after the send',
      )
      .expect(
        d.firstWakeUp.before === 'completed' && d.firstWakeUp.removed,
        `the first wake-up was ${d.firstWakeUp.before ?? 'never seen completed'}${d.firstWakeUp.removed ? ', then removed' : ', NOT removed'}`,
        'completed, then removed before the resend',
      )
      .expect(
        sends >= 2 && d.publishers.sent >= 2,
        `sends: outbox send_attempts ${sends}, broker accepted ${d.publishers.sent}`,
        'two: the send, and the resend once its claim passed',
      )
      .expect(
        d.eventSentAt !== null,
        `the event ${d.eventSentAt ? 'is confirmed sent by the resend' : 'was NEVER confirmed'}`,
        'confirmed by the resend',
      );
    f.expect(
      d.deliveries.length === 2 && d.deliveries.every((x) => x.messageId === d.eventId),
      `deliveries ${d.deliveries.length} (${e.duplicate_deliveries ?? 0} duplicate), message ${d.deliveries.map((x) => shortId(x.messageId)).join(' and ')}`,
      `two real deliveries of the one message ${shortId(d.eventId)}`,
    );
    f.expect(
      firstDelivery?.published === true,
      `first delivery: ${firstDelivery ? describeDelivery(firstDelivery) : 'none'}`,
      'claimed and published',
    );
    f.expect(
      secondDelivery !== undefined && !secondDelivery.claimed && !secondDelivery.published,
      `second delivery: ${secondDelivery ? describeDelivery(secondDelivery) : 'none'}`,
      "claimed nothing: the claim's compare-and-set takes only a queued job, and this one had succeeded",
    );
    const ownFile = publisher?.token ? d.resultRef === artifactName(e.job_id ?? '', publisher.token) : false;
    f.expect(
      published.length === 1 &&
        d.status === 'succeeded' &&
        d.attempts === 1 &&
        ownFile &&
        d.artifacts === 1 &&
        d.verdict === 'artifact-verified',
      `published ${published.length}; job ${d.status}, attempts ${d.attempts}, result_ref ${ownFile ? "the publishing claim's file" : (d.resultRef ?? 'NULL')}, ${d.artifacts} artifact file(s), ${d.verdict}`,
      "one published result: succeeded on attempt 1, result_ref the publishing claim's file, one artifact, verified",
    );
    return f.outcome();
  },
});

// ---- 9. the service is full ------------------------------------------------------------------

/** The matrix's small capacity, and how many submit at once. */
export const QUEUE_FULL = { limit: 2, concurrent: 5 } as const;

interface QueueFullDetails {
  limit: number;
  answers: PostAnswer[];
  jobs: number;
  events: number;
  jobIds: string[];
  gate: number;
}

export const queueFull: MatrixRow = defineRow<QueueFullDetails>('queue-full', {
  async scenario(lab) {
    const url = await startRowApi(lab, { rules: { admissionLimit: QUEUE_FULL.limit } });
    lab.rec.inject(`action: admission limit ${QUEUE_FULL.limit}, ${QUEUE_FULL.concurrent} concurrent POST /exports`);
    const answers = await Promise.all(
      Array.from({ length: QUEUE_FULL.concurrent }, () => postExport(lab, url, FAST_PRODUCTS)),
    );
    const first = answers.find((a) => a.id !== undefined)?.id ?? null;
    if (first) await lab.rec.watch(lab.pool, first);
    const counts = await countAll(lab.pool);
    const [ids] = await lab.pool.query<RowDataPacket[]>(ALL_JOB_IDS);
    return {
      jobId: first,
      details: {
        limit: QUEUE_FULL.limit,
        answers,
        ...counts,
        jobIds: ids.map((r) => String(r.id)),
        gate: await readGateCounter(lab.pool),
      },
    };
  },
  judge(e) {
    const d = e.details;
    const accepted = d.answers.filter((a) => a.status === 202);
    const refused = d.answers.filter((a) => a.status === 503);
    const wellRefused = refused.filter(
      (a) => a.error === 'capacity-exceeded' && a.retryAfter !== null && a.retryAfter !== '',
    );
    const acceptedHaveRows = accepted.every((a) => a.id !== undefined && d.jobIds.includes(a.id));
    const others = d.answers.length - accepted.length - refused.length;
    return new Findings()
      .expect(accepted.length === d.limit, `${accepted.length}x 202`, `${d.limit}`)
      .expect(
        refused.length === d.answers.length - d.limit && wellRefused.length === refused.length && others === 0,
        `${refused.length}x 503 (${wellRefused.length} capacity-exceeded with Retry-After${refused[0] ? ` "${refused[0].retryAfter}"` : ''})${others ? `, ${others} other` : ''}`,
        `${d.answers.length - d.limit}x 503 capacity-exceeded, each with Retry-After`,
      )
      .expect(
        d.jobs === d.limit && d.events === d.limit && acceptedHaveRows,
        `job rows ${d.jobs}, events ${d.events}${acceptedHaveRows ? '' : ', a 202 with no row'}`,
        `exactly ${d.limit}: no false 202, no orphan`,
      )
      .expect(d.gate === d.limit, `gate counter ${d.gate}`, `${d.limit}`)
      .outcome();
  },
});

// ---- 8. BullMQ no longer holds the result ---------------------------------------------------

interface ResultGoneDetails {
  post: number;
  messageId: string | null;
  beforeRemoval: string | null;
  removed: boolean;
  afterRemoval: string | null;
  get: GetAnswer | null;
  verdict: string;
}

export const resultCacheExpired: MatrixRow = defineRow<ResultGoneDetails>('result-cache-expired', {
  async scenario(lab) {
    const publisher = await startRowPublisher(lab);
    await startRowWorker(lab, FAST_QUEUE);
    const url = await startRowApi(lab, { publisher });
    const posted = await postExport(lab, url, FAST_PRODUCTS);
    const jobId = posted.id ?? null;
    const base = {
      post: posted.status,
      messageId: null,
      beforeRemoval: null,
      removed: false,
      afterRemoval: null,
      get: null,
      verdict: 'not run',
    };
    if (!jobId) return { jobId, details: base };
    await lab.rec.watch(lab.pool, jobId);
    await untilState(lab, (s) => s.status === 'succeeded', FINISH_WITHIN_MS);
    const messageId = (await eventsOf(lab.pool, jobId))[0]?.eventId ?? null;
    const beforeRemoval = messageId ? ((await wakeUpState(lab, FAST_QUEUE, messageId)) ?? null) : null;
    // Lesson 11's wake-ups keep a completed job for an hour (removeOnComplete: { age: 3600 });
    // job.remove() is what that retention does when the hour is over, without waiting for it.
    lab.rec.inject(
      "action: the completed wake-up removed from BullMQ with job.remove() (what removeOnComplete's age does after an hour)",
    );
    const removed = messageId ? await removeWakeUp(lab, FAST_QUEUE, messageId) : false;
    const afterRemoval = messageId ? ((await wakeUpState(lab, FAST_QUEUE, messageId)) ?? null) : null;
    const get = await getExport(lab, url, jobId);
    const verdict = await verifyArtifact(lab, jobId);
    return {
      jobId,
      sends: sendsOf(await eventsOf(lab.pool, jobId)),
      artifactSha256: verdict.artifactSha256 ?? null,
      workerRan: true,
      details: { post: posted.status, messageId, beforeRemoval, removed, afterRemoval, get, verdict: verdict.verdict },
    };
  },
  judge(e) {
    const d = e.details;
    return new Findings()
      .expect(d.post === 202, `POST ${d.post}`, '202')
      .expect(
        d.beforeRemoval === 'completed',
        `the wake-up ${shortId(d.messageId)} was ${d.beforeRemoval ?? 'not in BullMQ'} before`,
        'completed, with its result',
      )
      .expect(
        d.removed && d.afterRemoval === null,
        `after job.remove(): queue.getJob -> ${d.afterRemoval ?? 'undefined'}`,
        'undefined: BullMQ holds nothing',
      )
      .expect(
        d.get?.status === 200 && d.get.jobStatus === 'succeeded',
        `GET /exports/:id ${d.get ? `${d.get.status} ${d.get.jobStatus ?? ''}` : 'not asked'}`,
        '200 succeeded, from MySQL',
      )
      .expect(d.verdict === 'artifact-verified', d.verdict, 'artifact-verified')
      .outcome();
  },
});

// ---- the closing regression --------------------------------------------------------------------

interface RegressionDetails {
  post: number;
  get: GetAnswer | null;
  status: string;
  attempts: number;
  publishedDeliveries: number;
  verdict: string;
  problems: string[];
  reports: string[];
}

export const regressionCleanExport: MatrixRow = defineRow<RegressionDetails>('regression-clean-export', {
  async scenario(lab) {
    const publisher = await startRowPublisher(lab);
    await startRowWorker(lab, FAST_QUEUE);
    const url = await startRowApi(lab, { publisher });
    lab.rec.inject('none: POST /exports with every component running and no fault');
    const posted = await postExport(lab, url, FAST_PRODUCTS);
    const jobId = posted.id ?? null;
    if (jobId) {
      await lab.rec.watch(lab.pool, jobId);
      await untilState(
        lab,
        (s) => s.status === 'succeeded' || s.status === 'failed' || s.status === 'cancelled',
        FINISH_WITHIN_MS,
      );
      // The worker's phase line follows the row's change by a moment.
      await within(lab, 'the delivery line', () => lab.rec.deliveries.some((d) => d.published), 2000);
    }
    const verdict = jobId ? await verifyArtifact(lab, jobId) : undefined;
    const last = lab.rec.latest();
    return {
      jobId,
      sends: jobId ? sendsOf(await eventsOf(lab.pool, jobId)) : null,
      artifactSha256: verdict?.artifactSha256 ?? null,
      workerRan: true,
      details: {
        post: posted.status,
        get: jobId ? await getExport(lab, url, jobId) : null,
        status: last?.status ?? 'absent',
        attempts: last?.attempts ?? 0,
        publishedDeliveries: lab.rec.deliveries.filter((d) => d.published).length,
        verdict: verdict?.verdict ?? 'not run',
        problems: verdict?.problems ?? [],
        reports: lab.reports.map((r) => `${r.from}: ${r.line}`),
      },
    };
  },
  judge(e) {
    const d = e.details;
    return new Findings()
      .expect(d.post === 202, `POST ${d.post}`, '202')
      .expect(
        d.status === 'succeeded' && d.attempts === 1 && d.publishedDeliveries === 1,
        `job ${d.status}, attempts ${d.attempts}, published deliveries ${d.publishedDeliveries}`,
        'succeeded on attempt 1 with one published delivery',
      )
      .expect(
        d.get?.status === 200 && d.get.jobStatus === 'succeeded',
        `GET ${d.get ? `${d.get.status} ${d.get.jobStatus ?? ''}` : 'not asked'}`,
        '200 succeeded',
      )
      .expect(
        d.verdict === 'artifact-verified',
        `${d.verdict}${d.problems.length ? ` (${d.problems[0]})` : ''}`,
        'artifact-verified',
      )
      .expect(
        d.reports.length === 0,
        d.reports.length === 0 ? 'no component reported an error' : `reported: ${d.reports[0]?.slice(0, 120)}`,
        'no error from the publisher, the worker or the API',
      )
      .outcome();
  },
});
