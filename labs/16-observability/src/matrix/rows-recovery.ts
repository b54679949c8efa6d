// The matrix's rows about a job that lost its way after it was dispatched, and what lesson 15's
// recovery does about it: a worker killed holding the lease, an old holder finishing late, a
// cancel, attempts running out, a dispatch nobody claimed, a failure before the claim, a
// duplicate during the backoff, and a pending event that must keep the scanner quiet.
// Waits are real (the short lease, the backoff, the unclaimed threshold); times are only SET
// where the course's row says so ("next_attempt_at in the future", a job quiet for 61 s).
import { existsSync } from 'node:fs';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { FAULTS_ENV, faultRule, launchProcess, sleep, type Exit } from '@tasks-lab/lab-kit';
import { artifactName, microseconds, readJob, writeArtifactAtomically } from '@tasks-lab/11-mysql-leases';
import { BULK_QUEUE, FAST_QUEUE, readGateCounter } from '@tasks-lab/13-admission';
import {
  READ_DEAD_LETTER,
  requestCancel,
  SET_NEXT_ATTEMPT_AHEAD,
  type ClaimAttempt,
  type RecoveryReport,
} from '@tasks-lab/15-recovery';
import { OBSERVABILITY_OPTIONS, WORKER_PROCESS_OPTIONS } from '../options.ts';
import { parsePhaseLines } from '../phase-log.ts';
import { readJobState, shortId, type DeliverySeen, type ObservedState } from './evidence.ts';
import {
  artifactFiles,
  BULK_PRODUCTS,
  eventsOf,
  FAST_PRODUCTS,
  removeWakeUp,
  sendsOf,
  startRowPublisher,
  startRowScanner,
  startRowWorker,
  submit,
  untilState,
  verifyArtifact,
  within,
  type RowLab,
  type ScannerSighting,
} from './harness.ts';
import { defineRow, Findings, type MatrixRow } from './row.ts';

// ---- statements that set a time, on the row's own job only ------------------------------

/**
 * A queued job that has been quiet for `?` µs: created, changed and due that long ago (its event
 * still unsent, as when the publisher is down). Affected rows: 1. Parameters: [micros x3, jobId].
 */
export const MARK_JOB_QUIET_SINCE = `
  UPDATE export_jobs
  SET created_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6)),
      updated_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6)),
      next_attempt_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6))
  WHERE id = ?`;

/** When the publisher's confirmation recorded the job's dispatch. Rows returned: 0 or 1. Parameters: [jobId]. */
export const READ_LAST_DISPATCH = `
  SELECT last_dispatched_at
  FROM export_jobs
  WHERE id = ?`;

// ---- what the rows share ----------------------------------------------------------------

/** What a direct claim got. */
interface ClaimSeen {
  claimed: boolean;
  attempts: number | null;
  token: string | null;
}

const seenClaim = (attempt: ClaimAttempt): ClaimSeen =>
  attempt.outcome === 'claimed'
    ? { claimed: true, attempts: attempt.job.attempts, token: attempt.job.token }
    : { claimed: false, attempts: null, token: null };

async function claimOnce(lab: RowLab, jobId: string): Promise<ClaimAttempt> {
  return lab.parts.claim(lab.pool, jobId, { leaseMs: lab.timings.leaseMs, maxAttempts: lab.timings.maxAttempts });
}

/**
 * A claim once a backoff is over, tried again for up to 1 s if it gets nothing (the next
 * attempt is the SERVER's instant: a claim a few ms early is a redelivery that comes back).
 */
async function claimWhenDue(lab: RowLab, jobId: string): Promise<ClaimAttempt> {
  let attempt = await claimOnce(lab, jobId);
  for (let i = 0; i < 20 && attempt.outcome !== 'claimed'; i += 1) {
    await sleep(50, lab.signal);
    attempt = await claimOnce(lab, jobId);
  }
  return attempt;
}

/** What one scan did to the job: requeued, redispatched, cancelled, failed or untouched (and why). */
interface ScanSeen {
  moved: string;
  reason: string | null;
  nextAttemptAt: number | null;
}

function seenIn(report: RecoveryReport | Error, jobId: string): ScanSeen {
  if (report instanceof Error)
    return { moved: `batch failed: ${report.message.slice(0, 120)}`, reason: null, nextAttemptAt: null };
  for (const kind of ['requeued', 'redispatched', 'cancelled', 'failed'] as const) {
    const job = report[kind].find((j) => j.jobId === jobId);
    if (job) return { moved: kind, reason: job.reason, nextAttemptAt: job.nextAttemptAt?.getTime() ?? null };
  }
  return { moved: 'untouched', reason: null, nextAttemptAt: null };
}

/** One scanner batch (the row's part), its error kept as evidence. */
async function scanOnce(lab: RowLab, jobId: string): Promise<ScanSeen> {
  const t = lab.timings;
  const report = await lab.parts
    .recoverBatch(lab.pool, {
      batch: t.recoveryBatch,
      retryBackoffMs: t.retryBackoffMs,
      unclaimedThresholdMs: t.unclaimedThresholdMs,
      maxAttempts: t.maxAttempts,
    })
    .catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
  return seenIn(report, jobId);
}

/**
 * Scans until the job's expired lease is taken back: the lease is the SERVER's, so the first
 * scan right at its end may still find it live. Up to 1 s of tries, 25 ms apart.
 */
async function scanAfterLease(lab: RowLab, jobId: string, leaseUntil: number): Promise<ScanSeen> {
  await sleep(Math.max(0, leaseUntil - Date.now() + 20), lab.signal);
  let seen = await scanOnce(lab, jobId);
  for (let i = 0; i < 40 && seen.moved === 'untouched'; i += 1) {
    await sleep(25, lab.signal);
    seen = await scanOnce(lab, jobId);
  }
  return seen;
}

/** Waits until a requeued job's backoff is over (its next_attempt_at, plus a little for the clocks). */
const waitOutBackoff = (lab: RowLab, seen: ScanSeen) =>
  sleep(Math.max(0, (seen.nextAttemptAt ?? Date.now()) - Date.now() + 30), lab.signal);

const stateText = (s: Pick<ObservedState, 'status' | 'attempts'> | null | undefined) =>
  s ? `${s.status}, attempts ${s.attempts}` : 'no row';
const scanText = (s: ScanSeen) => `${s.moved}${s.reason ? ` (${s.reason})` : ''}`;
const claimText = (c: ClaimSeen) =>
  c.claimed ? `claimed (attempts ${c.attempts}, token ${shortId(c.token)})` : 'nothing';

const redispatchesOf = (sightings: readonly ScannerSighting[], jobId: string) =>
  sightings
    .filter((s) => s.recovered.jobId === jobId && s.recovered.to === 'queued' && s.recovered.from === 'queued')
    .map((s) => ({ at_ms: s.at_ms, reason: s.recovered.reason }));

// ---- 4. a worker process killed while it holds the lease ---------------------------------

/** BullMQ's own locks in the killed process, short (lesson 15's drill): nothing here waits for them. */
const PROCESS_LOCKS = { lockDurationMs: 1000, stalledIntervalMs: 500, maxStalledCount: 1 } as const;
const WORKER_READY = /export worker \d+ ready/;

interface KilledWorkerDetails {
  worker: string;
  pid: number;
  exit: Exit | null;
  claim: { attempts: number; token: string | null } | null;
  afterKill: Omit<ObservedState, 'at_ms'> | null;
  requeue: { at_ms: number; reason: string } | null;
  events: number;
  final: { status: string; attempts: number; token: string | null };
  verdict: string;
}

export const workerKilledHoldingLease: MatrixRow = defineRow<KilledWorkerDetails>('worker-killed-holding-lease', {
  cannotRun: (parts) =>
    existsSync(parts.killedWorker.script) ? undefined : `the worker script ${parts.killedWorker.script} does not exist`,
  async scenario(lab) {
    const publisher = await startRowPublisher(lab);
    const command = lab.parts.killedWorker;
    const env = {
      ...OBSERVABILITY_OPTIONS.toEnv({ ...lab.timings, logLevel: 'info' }),
      ...WORKER_PROCESS_OPTIONS.toEnv({
        database: lab.database,
        artifactsDir: lab.artifactsDir,
        queuePrefix: lab.prefix,
        concurrency: 1,
        ...PROCESS_LOCKS,
      }),
      [FAULTS_ENV]: faultRule('after-claim', 'hang'),
    };
    const proc = await launchProcess(command.script, {
      args: command.args,
      ready: WORKER_READY,
      resources: lab.res,
      env,
    });
    const admitted = await submit(lab, BULK_PRODUCTS);
    await lab.rec.watch(lab.pool, admitted.jobId);
    publisher.nudge();
    const running = await untilState(lab, (s) => s.status === 'running', 15_000);
    // The process's own `claimed` phase line: its message id and token (the row says the same).
    const claimLine = running
      ? await within(
          lab,
          'the claimed line',
          () => parsePhaseLines(proc.output()).find((l) => l.phase === 'claimed' && l.job_id === admitted.jobId),
          2000,
        )
      : undefined;
    if (claimLine) {
      const claimedAt = Date.parse(claimLine.time);
      const delivery = {
        message_id: String(claimLine.message_id),
        claimed: true,
        published: false,
        lease_token: claimLine.lease_token ?? null,
        by: `worker process ${proc.pid}`,
        note: 'hung after its claim, then killed',
      };
      lab.rec.delivered(delivery, Number.isFinite(claimedAt) ? claimedAt : Date.now());
    }
    const killAt = lab.rec.inject(
      `SIGKILL worker process ${proc.pid} (${FAULTS_ENV}=after-claim:hang: it holds the lease)`,
    );
    const exit = await proc.kill('SIGKILL');
    const afterKill = await readJobState(lab.pool, admitted.jobId);
    // The recovery: the scanner takes the expired lease back; a second worker runs the retry.
    await startRowWorker(lab, BULK_QUEUE, { name: 'second worker (in-process)' });
    const { sightings } = startRowScanner(lab, { publisher });
    const t = lab.timings;
    // Every timer on the path, the scan and the publisher's poll included: with the course's
    // timings (a 5 s scan, a 5 s poll) a wait of lease + backoff alone can end before the retry runs.
    const succeeded = await untilState(
      lab,
      (s) => s.status === 'succeeded',
      t.leaseMs + t.recoveryScanMs + t.retryBackoffMs + t.pollMs + 10_000,
      killAt,
    );
    const requeue = sightings.find((s) => s.recovered.jobId === admitted.jobId && s.recovered.from === 'running');
    const events = await eventsOf(lab.pool, admitted.jobId);
    const verdict = await verifyArtifact(lab, admitted.jobId);
    const last = lab.rec.latest();
    return {
      jobId: admitted.jobId,
      recovery: { fromMs: killAt, toMs: succeeded?.at_ms },
      sends: sendsOf(events),
      artifactSha256: verdict.artifactSha256 ?? null,
      workerRan: true,
      details: {
        worker: `${command.script.split('/').slice(-3).join('/')} ${command.args.join(' ')}`,
        pid: proc.pid,
        exit,
        claim: running ? { attempts: running.attempts, token: running.lease_token } : null,
        afterKill,
        requeue: requeue ? { at_ms: requeue.at_ms, reason: requeue.recovered.reason } : null,
        events: events.length,
        final: { status: last?.status ?? '?', attempts: last?.attempts ?? 0, token: last?.lease_token ?? null },
        verdict: verdict.verdict,
      },
    };
  },
  judge(e) {
    const d = e.details;
    const f = new Findings().expect(
      d.claim?.attempts === 1,
      d.claim
        ? `worker process ${d.pid} claimed (attempts ${d.claim.attempts}, token ${shortId(d.claim.token)})`
        : `worker process ${d.pid} NEVER claimed`,
      'a claim, attempts 1',
    );
    f.expect(d.exit?.signal === 'SIGKILL', `exit ${JSON.stringify(d.exit)}`, 'killed by SIGKILL');
    f.expect(
      d.afterKill?.status === 'running' && d.afterKill.lease_token === d.claim?.token,
      `right after the kill: ${stateText(d.afterKill)}, token ${shortId(d.afterKill?.lease_token)}`,
      "still running with the dead holder's token: nothing frees a lease but its expiry",
    );
    f.expect(
      d.requeue?.reason === 'lease_expired' && d.events === 2,
      `the scanner ${d.requeue ? `requeued it (${d.requeue.reason}) at ${d.requeue.at_ms} ms` : 'NEVER requeued it'}; ${d.events} event(s)`,
      'requeued (lease_expired) with a new event: 2 in all',
    );
    f.expect(
      d.final.status === 'succeeded' && d.final.attempts === 2 && d.verdict === 'artifact-verified',
      `final: ${d.final.status}, attempts ${d.final.attempts}, ${d.verdict}`,
      'succeeded on attempts 2, artifact verified',
    );
    return f.outcome();
  },
});

// ---- 5. an old holder finishes late ---------------------------------------------------------

interface OldTokenDetails {
  first: ClaimSeen;
  scan: ScanSeen;
  second: ClaimSeen;
  finishOld: boolean | string;
  refAfterOld: string | null;
  finishNew: boolean | string;
  refAfterNew: string | null;
  newName: string | null;
  verdict: string;
}

/** A finish that throws (a broken part may) is evidence, not a crash of the row. */
const finishOrError = (p: Promise<boolean>): Promise<boolean | string> =>
  p.catch((err: unknown) => `threw: ${err instanceof Error ? err.message : String(err)}`);

export const oldTokenLate: MatrixRow = defineRow<OldTokenDetails>('old-token-late', {
  async scenario(lab) {
    const admitted = await submit(lab, FAST_PRODUCTS);
    const jobId = admitted.jobId;
    await lab.rec.watch(lab.pool, jobId);
    const a = await claimOnce(lab, jobId);
    const first = seenClaim(a);
    const none = {
      first,
      scan: { moved: 'not run', reason: null, nextAttemptAt: null },
      second: seenClaim({ outcome: 'not-claimable' }),
      finishOld: false,
      refAfterOld: null,
      finishNew: false,
      refAfterNew: null,
      newName: null,
      verdict: 'not run',
    };
    if (a.outcome !== 'claimed') return { jobId, details: none };
    // Holder A writes its file, then pauses past its lease (a GC pause, a stalled disk).
    const oldName = artifactName(jobId, a.job.token);
    await writeArtifactAtomically(lab.artifactsDir, oldName, a.job.snapshot);
    lab.rec.inject(`holder A (token ${shortId(a.job.token)}) pauses past its lease`);
    const scan = await scanAfterLease(lab, jobId, a.job.leaseUntil.getTime());
    await waitOutBackoff(lab, scan);
    const b = scan.moved === 'requeued' ? await claimWhenDue(lab, jobId) : await claimOnce(lab, jobId);
    const second = seenClaim(b);
    const newName = b.outcome === 'claimed' ? artifactName(jobId, b.job.token) : null;
    if (b.outcome === 'claimed' && newName) await writeArtifactAtomically(lab.artifactsDir, newName, b.job.snapshot);
    lab.rec.inject(`action: holder A finishes late with its old token ${shortId(a.job.token)}`);
    const finishOld = await finishOrError(lab.parts.finish(lab.pool, jobId, a.job.token, oldName));
    const refAfterOld = (await readJob(lab.pool, jobId))?.resultRef ?? null;
    const finishNew =
      b.outcome === 'claimed' && newName
        ? await finishOrError(lab.parts.finish(lab.pool, jobId, b.job.token, newName))
        : 'no second claim';
    const refAfterNew = (await readJob(lab.pool, jobId))?.resultRef ?? null;
    const verdict = await verifyArtifact(lab, jobId);
    return {
      jobId,
      artifactSha256: verdict.artifactSha256 ?? null,
      details: {
        first,
        scan,
        second,
        finishOld,
        refAfterOld,
        finishNew,
        refAfterNew,
        newName,
        verdict: verdict.verdict,
      },
    };
  },
  judge(e) {
    const d = e.details;
    return new Findings()
      .expect(d.first.claimed && d.first.attempts === 1, `claim A: ${claimText(d.first)}`, 'claimed, attempts 1')
      .expect(
        d.scan.moved === 'requeued' && d.scan.reason === 'lease_expired',
        `after A's lease the scan: ${scanText(d.scan)}`,
        'requeued (lease_expired)',
      )
      .expect(
        d.second.claimed && d.second.attempts === 2 && d.second.token !== d.first.token,
        `claim B: ${claimText(d.second)}`,
        'claimed, attempts 2, a new token',
      )
      .expect(
        d.finishOld === false && d.refAfterOld === null,
        `finish with A: ${d.finishOld}, result_ref then ${d.refAfterOld ?? 'NULL'}`,
        'false, result_ref unchanged (NULL)',
      )
      .expect(
        d.finishNew === true && d.refAfterNew === d.newName,
        `finish with B: ${d.finishNew}, result_ref then ${d.refAfterNew ? `${shortId(d.refAfterNew.split('.')[1])} (B's file)` : 'NULL'}`,
        "true, result_ref = B's file",
      )
      .expect(d.verdict === 'artifact-verified', d.verdict, 'artifact-verified')
      .outcome();
  },
});

// ---- 6. a running job is cancelled --------------------------------------------------------

/** Each chunk waits this long first: the export takes ~1.2 s, a cancel lands between two chunks. */
export const CANCEL_CHUNK_DELAY_MS = 300;

interface CancelDetails {
  cancel: string;
  delivery: DeliverySeen | null;
  finishWithToken: boolean | string | null;
  final: { status: string; resultRef: string | null };
  artifacts: string[];
  verdict: string;
  gate: { before: number; after: number };
}

export const cancelRunning: MatrixRow = defineRow<CancelDetails>('cancel', {
  async scenario(lab) {
    const publisher = await startRowPublisher(lab);
    await startRowWorker(lab, BULK_QUEUE, {
      faults: faultRule('before-chunk', `delay-${CANCEL_CHUNK_DELAY_MS}`, 'always'),
    });
    startRowScanner(lab, { publisher });
    const admitted = await submit(lab, BULK_PRODUCTS);
    const jobId = admitted.jobId;
    await lab.rec.watch(lab.pool, jobId);
    publisher.nudge();
    const running = await untilState(lab, (s) => s.status === 'running', 10_000);
    const gateBefore = await readGateCounter(lab.pool);
    // After the first chunk, before the second one's check.
    if (running) await sleep(Math.max(0, running.at_ms + CANCEL_CHUNK_DELAY_MS * 1.5 - lab.rec.at()), lab.signal);
    const cancelAt = lab.rec.inject(
      'action: requestCancel (cancel_requested = TRUE) while the worker writes its chunks',
    );
    const cancel = await requestCancel(lab.pool, jobId).then(
      (r) => r.outcome,
      (err: unknown) => `threw: ${err instanceof Error ? err.message : String(err)}`,
    );
    const delivery = await within(
      lab,
      'the worker to end its delivery',
      () => lab.rec.deliveries.find((d) => d.claimed),
      5000,
    );
    // The holder's token, asked to finish after the cancel: lesson 11's FINISH must refuse.
    const token = (await readJobState(lab.pool, jobId)).lease_token;
    const finishWithToken = token
      ? await finishOrError(lab.parts.finish(lab.pool, jobId, token, artifactName(jobId, token)))
      : null;
    const cancelled = await untilState(lab, (s) => s.status === 'cancelled', lab.timings.leaseMs + 5000, cancelAt);
    const row = await readJob(lab.pool, jobId);
    const verdict = await verifyArtifact(lab, jobId);
    return {
      jobId,
      recovery: { fromMs: cancelAt, toMs: cancelled?.at_ms },
      sends: sendsOf(await eventsOf(lab.pool, jobId)),
      workerRan: true,
      details: {
        cancel,
        delivery: delivery ?? null,
        finishWithToken,
        final: { status: row?.status ?? 'absent', resultRef: row?.resultRef ?? null },
        artifacts: await artifactFiles(lab),
        verdict: verdict.verdict,
        gate: { before: gateBefore, after: await readGateCounter(lab.pool) },
      },
    };
  },
  judge(e) {
    const d = e.details;
    const dv = d.delivery;
    return new Findings()
      .expect(d.cancel === 'cancel-requested', `cancel: ${d.cancel}`, 'cancel-requested')
      .expect(
        dv !== null && dv.claimed && !dv.published && (dv.note ?? '').includes('stopped'),
        dv
          ? `the worker's delivery: published ${dv.published}${dv.note ? `, ${dv.note}` : ''}`
          : 'the worker never ended its delivery',
        'stopped at a chunk boundary, not published',
      )
      .expect(
        d.finishWithToken === false,
        `a finish with the job's token: ${d.finishWithToken ?? 'not asked (no token)'}`,
        'false: FINISH refuses a cancelled job',
      )
      .expect(
        d.final.status === 'cancelled' && d.final.resultRef === null && d.verdict === 'terminal-without-artifact',
        `final: ${d.final.status}, result_ref ${d.final.resultRef ?? 'NULL'}, ${d.verdict}`,
        'cancelled, result_ref NULL',
      )
      .expect(
        d.artifacts.length === 0,
        d.artifacts.length === 0
          ? 'no artifact (nor temp file) left'
          : `${d.artifacts.length} file(s) left in the artifacts folder`,
        'none',
      )
      .expect(
        d.gate.after === d.gate.before - 1,
        `gate counter ${d.gate.before} -> ${d.gate.after}`,
        'one less: the cancelled job left the gate',
      )
      .outcome();
  },
});

// ---- 7. every attempt expires ------------------------------------------------------------------

interface ExhaustedDetails {
  maxAttempts: number;
  rounds: { claim: ClaimSeen; scan: ScanSeen }[];
  fourth: ClaimSeen;
  deadLetters: string[];
  final: { status: string; attempts: number; resultRef: string | null };
  gate: { before: number; after: number };
}

async function deadLettersOf(pool: Pool, jobId: string): Promise<string[]> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_DEAD_LETTER, [jobId]);
  return rows.map((row) => String(row.reason));
}

export const attemptsExhausted: MatrixRow = defineRow<ExhaustedDetails>('attempts-exhausted', {
  async scenario(lab) {
    const admitted = await submit(lab, FAST_PRODUCTS);
    const jobId = admitted.jobId;
    await lab.rec.watch(lab.pool, jobId);
    const gateBefore = await readGateCounter(lab.pool);
    const rounds: ExhaustedDetails['rounds'] = [];
    for (let round = 1; round <= lab.timings.maxAttempts; round += 1) {
      const attempt = round === 1 ? await claimOnce(lab, jobId) : await claimWhenDue(lab, jobId);
      if (attempt.outcome !== 'claimed') {
        rounds.push({ claim: seenClaim(attempt), scan: await scanOnce(lab, jobId) });
        break;
      }
      lab.rec.inject(`claim ${round}'s holder never finishes: its lease expires`);
      const scan = await scanAfterLease(lab, jobId, attempt.job.leaseUntil.getTime());
      rounds.push({ claim: seenClaim(attempt), scan });
      if (scan.moved === 'requeued') await waitOutBackoff(lab, scan);
    }
    const fourth = seenClaim(await claimOnce(lab, jobId));
    const row = await readJob(lab.pool, jobId);
    return {
      jobId,
      details: {
        maxAttempts: lab.timings.maxAttempts,
        rounds,
        fourth,
        deadLetters: await deadLettersOf(lab.pool, jobId),
        final: { status: row?.status ?? 'absent', attempts: row?.attempts ?? 0, resultRef: row?.resultRef ?? null },
        gate: { before: gateBefore, after: await readGateCounter(lab.pool) },
      },
    };
  },
  judge(e) {
    const d = e.details;
    const expected = Array.from({ length: d.maxAttempts }, (_, i) => (i < d.maxAttempts - 1 ? 'requeued' : 'failed'));
    const roundsOk =
      d.rounds.length === d.maxAttempts &&
      d.rounds.every((r, i) => r.claim.claimed && r.claim.attempts === i + 1 && r.scan.moved === expected[i]);
    const lastReason = d.rounds.at(-1)?.scan.reason;
    return new Findings()
      .expect(
        roundsOk && lastReason === 'attempts_exhausted',
        d.rounds.map((r, i) => `#${i + 1}: ${claimText(r.claim)}, scan ${scanText(r.scan)}`).join(', '),
        `claims with attempts 1..${d.maxAttempts}, then ${expected.join(', ')} (attempts_exhausted)`,
      )
      .expect(!d.fourth.claimed, `a 4th claim: ${claimText(d.fourth)}`, 'nothing')
      .expect(
        d.deadLetters.length === 1 && d.deadLetters[0] === 'attempts_exhausted',
        `dead letters: ${d.deadLetters.join(', ') || 'none'}`,
        'one, attempts_exhausted',
      )
      .expect(
        d.final.status === 'failed' && d.final.attempts === d.maxAttempts && d.final.resultRef === null,
        `final: ${stateText(d.final)}, result_ref ${d.final.resultRef ?? 'NULL'}`,
        `failed, attempts ${d.maxAttempts}, no result`,
      )
      .expect(d.gate.after === d.gate.before - 1, `gate counter ${d.gate.before} -> ${d.gate.after}`, 'one less')
      .outcome();
  },
});

// ---- 12. dispatched, and nobody claimed it -------------------------------------------------

interface UnclaimedDetails {
  firstEvent: string | null;
  firstSent: boolean;
  removed: boolean;
  thresholdMs: number;
  redispatches: { at_ms: number; reason: string }[];
  events: number;
  final: { status: string; attempts: number };
  verdict: string;
}

export const dispatchedNeverClaimed: MatrixRow = defineRow<UnclaimedDetails>('dispatched-never-claimed', {
  async scenario(lab) {
    const publisher = await startRowPublisher(lab);
    const admitted = await submit(lab, FAST_PRODUCTS);
    const jobId = admitted.jobId;
    await lab.rec.watch(lab.pool, jobId);
    publisher.nudge();
    // No worker yet: the wake-up is sent and waits in Redis; then it is lost.
    const sent = await within(
      lab,
      'the first send confirmed',
      async () => (await eventsOf(lab.pool, jobId)).find((e) => e.sentAt !== null),
      5000,
    );
    lab.rec.inject('action: the sent wake-up removed from Redis before any worker took it (the message is lost)');
    const removed = await removeWakeUp(lab, FAST_QUEUE, admitted.eventId);
    const [dispatch] = await lab.pool.query<RowDataPacket[]>(READ_LAST_DISPATCH, [jobId]);
    const dispatchedAt =
      dispatch[0]?.last_dispatched_at instanceof Date ? dispatch[0].last_dispatched_at.getTime() : undefined;
    // The recovery is timed from the dispatch whose message was lost: the unclaimed budget
    // (threshold + scan + allowance) counts the threshold, so timing from the threshold's end
    // would leave the check a whole threshold too lenient.
    const lostAt = dispatchedAt === undefined ? undefined : lab.rec.at(dispatchedAt);
    // A worker comes up now: the lost message will never reach it; only a new event can.
    await startRowWorker(lab, FAST_QUEUE);
    const { sightings } = startRowScanner(lab, { publisher });
    // The first scan after the threshold may come up to one scan interval later.
    const redispatched = await within(
      lab,
      'the scanner to redispatch',
      () => redispatchesOf(sightings, jobId)[0],
      lab.timings.unclaimedThresholdMs + lab.timings.recoveryScanMs + 3000,
    );
    const succeeded = redispatched ? await untilState(lab, (s) => s.status === 'succeeded', 10_000) : undefined;
    const events = await eventsOf(lab.pool, jobId);
    const verdict = await verifyArtifact(lab, jobId);
    const last = lab.rec.latest();
    return {
      jobId,
      recovery: { fromMs: lostAt, toMs: succeeded?.at_ms },
      sends: sendsOf(events),
      artifactSha256: verdict.artifactSha256 ?? null,
      workerRan: true,
      details: {
        firstEvent: admitted.eventId,
        firstSent: sent !== undefined,
        removed,
        thresholdMs: lab.timings.unclaimedThresholdMs,
        redispatches: redispatchesOf(sightings, jobId),
        events: events.length,
        final: { status: last?.status ?? '?', attempts: last?.attempts ?? 0 },
        verdict: verdict.verdict,
      },
    };
  },
  judge(e) {
    const d = e.details;
    return new Findings()
      .expect(
        d.firstSent && d.removed,
        `event ${shortId(d.firstEvent)} sent ${d.firstSent}, its wake-up removed ${d.removed}`,
        'sent, then lost',
      )
      .expect(
        d.redispatches.length === 1 && d.redispatches[0]?.reason === 'dispatch_overdue' && d.events === 2,
        `the scanner redispatched it ${d.redispatches.length} time(s)${d.redispatches[0] ? ` (${d.redispatches[0].reason})` : ''}; ${d.events} event(s)`,
        `ONE new event (dispatch_overdue) once the ${d.thresholdMs} ms threshold passed: 2 in all`,
      )
      .expect(
        d.final.status === 'succeeded' && d.final.attempts === 1 && d.verdict === 'artifact-verified',
        `final: ${stateText(d.final)}, ${d.verdict}`,
        'succeeded, attempts 1, artifact verified',
      )
      .outcome();
  },
});

// ---- 13. the worker fails before its claim ------------------------------------------------------

interface BeforeClaimDetails {
  failedDelivery: DeliverySeen | null;
  afterFailure: Omit<ObservedState, 'at_ms'> | null;
  redispatches: { at_ms: number; reason: string }[];
  final: { status: string; attempts: number };
  verdict: string;
}

export const failsBeforeClaim: MatrixRow = defineRow<BeforeClaimDetails>('fails-before-claim', {
  async scenario(lab) {
    const rule = faultRule('before-claim', 'throw');
    await startRowWorker(lab, FAST_QUEUE, { faults: rule });
    const publisher = await startRowPublisher(lab);
    const { sightings } = startRowScanner(lab, { publisher });
    lab.rec.inject(
      `${FAULTS_ENV}=${rule} on the worker: its first delivery throws before the claim (as a lost database connection would)`,
    );
    const admitted = await submit(lab, FAST_PRODUCTS);
    const jobId = admitted.jobId;
    await lab.rec.watch(lab.pool, jobId);
    publisher.nudge();
    const failed = await within(
      lab,
      'the failed delivery',
      () => lab.rec.deliveries.find((d) => d.error !== undefined),
      5000,
    );
    const afterFailure = failed ? await readJobState(lab.pool, jobId) : null;
    const succeeded = await untilState(lab, (s) => s.status === 'succeeded', lab.timings.unclaimedThresholdMs + 5000);
    const verdict = await verifyArtifact(lab, jobId);
    const last = lab.rec.latest();
    return {
      jobId,
      recovery: { fromMs: failed?.at_ms, toMs: succeeded?.at_ms },
      sends: sendsOf(await eventsOf(lab.pool, jobId)),
      artifactSha256: verdict.artifactSha256 ?? null,
      workerRan: true,
      details: {
        failedDelivery: failed ?? null,
        afterFailure,
        redispatches: redispatchesOf(sightings, jobId),
        final: { status: last?.status ?? '?', attempts: last?.attempts ?? 0 },
        verdict: verdict.verdict,
      },
    };
  },
  judge(e) {
    const d = e.details;
    const fd = d.failedDelivery;
    return new Findings()
      .expect(
        fd !== null && !fd.claimed,
        fd
          ? `delivery ${shortId(fd.message_id)} failed before its claim: "${(fd.error ?? '').slice(0, 80)}"`
          : 'no delivery failed',
        'the first delivery to fail before any claim',
      )
      .expect(
        d.afterFailure?.status === 'queued' && d.afterFailure.attempts === 0,
        `then the row: ${stateText(d.afterFailure)}`,
        'queued, attempts 0: a failure before the claim spends no attempt',
      )
      .expect(
        d.redispatches.length >= 1 && d.redispatches.every((r) => r.reason === 'dispatch_overdue'),
        `the scanner redispatched it ${d.redispatches.length} time(s)`,
        'once the unclaimed threshold passed (dispatch_overdue)',
      )
      .expect(
        d.final.status === 'succeeded' && d.final.attempts === 1 && d.verdict === 'artifact-verified',
        `final: ${stateText(d.final)}, ${d.verdict}`,
        'succeeded, attempts 1, artifact verified',
      )
      .outcome();
  },
});

// ---- 14. a duplicate message during the backoff ---------------------------------------------

/**
 * How far ahead the row sets next_attempt_at: the course's 10 s (nothing waits for it to pass,
 * and the two claims must both land inside it, even on a loaded machine).
 */
export const BACKOFF_AHEAD_MS = 10_000;

interface BackoffDetails {
  claims: ClaimSeen[];
  after: Omit<ObservedState, 'at_ms'>;
}

export const duplicateDuringBackoff: MatrixRow = defineRow<BackoffDetails>('duplicate-during-backoff', {
  async scenario(lab) {
    const admitted = await submit(lab, FAST_PRODUCTS);
    const jobId = admitted.jobId;
    await lab.rec.watch(lab.pool, jobId);
    await lab.pool.query(SET_NEXT_ATTEMPT_AHEAD, [microseconds(BACKOFF_AHEAD_MS), jobId]);
    lab.rec.inject(`action: next_attempt_at ${BACKOFF_AHEAD_MS} ms ahead, then two duplicate messages claim directly`);
    const claims = [seenClaim(await claimOnce(lab, jobId)), seenClaim(await claimOnce(lab, jobId))];
    return { jobId, details: { claims, after: await readJobState(lab.pool, jobId) } };
  },
  judge(e) {
    const d = e.details;
    return new Findings()
      .expect(
        d.claims.length === 2 && d.claims.every((c) => !c.claimed),
        `two claims: ${d.claims.map(claimText).join(', ')}`,
        'nothing, twice',
      )
      .expect(
        d.after.status === 'queued' && d.after.attempts === 0 && d.after.lease_token === null,
        `then the row: ${stateText(d.after)}, token ${shortId(d.after.lease_token)}`,
        'queued, attempts 0, no token',
      )
      .outcome();
  },
});

// ---- 15. a pending event keeps the scanner quiet --------------------------------------------

/** The course's "61 seconds ago": past its 60 s threshold, and past the short one. */
export const QUIET_FOR_MS = 61_000;

interface PendingDetails {
  before: { events: number; unsent: number };
  scans: { scan: ScanSeen; events: number; unsent: number }[];
  after: Omit<ObservedState, 'at_ms'>;
}

async function eventCounts(pool: Pool, jobId: string): Promise<{ events: number; unsent: number }> {
  const events = await eventsOf(pool, jobId);
  return { events: events.length, unsent: events.filter((e) => e.sentAt === null).length };
}

export const pendingEventSuppresses: MatrixRow = defineRow<PendingDetails>('pending-event-suppresses', {
  async scenario(lab) {
    // No publisher: the job's event stays unsent (the publisher is down, say).
    const admitted = await submit(lab, FAST_PRODUCTS);
    const jobId = admitted.jobId;
    await lab.rec.watch(lab.pool, jobId);
    await lab.pool.query(MARK_JOB_QUIET_SINCE, [
      microseconds(QUIET_FOR_MS),
      microseconds(QUIET_FOR_MS),
      microseconds(QUIET_FOR_MS),
      jobId,
    ]);
    lab.rec.inject(`action: the job quiet for ${QUIET_FOR_MS / 1000} s with its event unsent; the scanner runs twice`);
    const before = await eventCounts(lab.pool, jobId);
    const scans: PendingDetails['scans'] = [];
    for (let i = 0; i < 2; i += 1)
      scans.push({ scan: await scanOnce(lab, jobId), ...(await eventCounts(lab.pool, jobId)) });
    return { jobId, details: { before, scans, after: await readJobState(lab.pool, jobId) } };
  },
  judge(e) {
    const d = e.details;
    const quiet =
      d.scans.length === 2 &&
      d.scans.every(
        (s) => s.scan.moved === 'untouched' && s.events === d.before.events && s.unsent === d.before.unsent,
      );
    return new Findings()
      .expect(
        d.before.events === 1 && d.before.unsent === 1,
        `before: ${d.before.events} event(s), ${d.before.unsent} unsent`,
        'one pending event',
      )
      .expect(
        quiet,
        d.scans.map((s, i) => `scan ${i + 1}: ${scanText(s.scan)}, events ${s.events} (${s.unsent} unsent)`).join('; '),
        'untouched, no new event',
      )
      .expect(
        d.after.status === 'queued' && d.after.attempts === 0,
        `then the row: ${stateText(d.after)}`,
        'queued, attempts 0',
      )
      .outcome();
  },
});
