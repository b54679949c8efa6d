// Lesson 13's routing and backlog checks: the route chosen at admission by the distinct row
// count, one real worker process per queue, the course's drill (the bulk worker paused for
// real while small exports keep finishing), and the backlog (how many, how old, and a gate
// counter that every exit brought back to 0). The scenarios (scripts/routing-scenarios.ts)
// run the real thing; each judge below reads only their evidence.
// buildRoutingChecks(deps) swaps a broken part in for the can-fail tests; building starts nothing.
import { defineCheck, outcome, sharedScenario, type Check, formatDuration } from '@tasks-lab/lab-kit';
import type { Backlog } from '../src/backlog.ts';
import { BULK_QUEUE, FAST_QUEUE, type AdmissionOptionValues } from '../src/options.ts';
import {
  routeByRowCount,
  workersAndBacklog,
  type DrillEvidence,
  type QueueWorkers,
  type RoutingParts,
  type RoutingSetup,
  type TrackedJob,
  type WorkersEvidence,
} from './routing-scenarios.ts';

export interface RoutingCheckDeps {
  /** Broken parts (the can-fail tests). */
  routingParts?: Partial<RoutingParts>;
  /** @defaultValue the short timings (USE_COURSE_TIMINGS=1 forces the course's) */
  routingTimings?: AdmissionOptionValues;
}

const show = (value: unknown) => JSON.stringify(value);
const seconds = (s: number | undefined) => (s === undefined ? 'none' : `${s.toFixed(2)} s`);
const shortId = (id: string) => `${id.slice(0, 8)}…`;

/** The DB's clock and this process's may differ a little, and ages are read in microseconds: this much slack. */
const AGE_TOLERANCE_S = 0.25;

// ---- reading a backlog ---------------------------------------------------------

const jobsIn = (b: Backlog, status: string) => b.byStatus.find((r) => r.status === status)?.jobs ?? 0;
const oldestIn = (b: Backlog, status: string) => b.byStatus.find((r) => r.status === status)?.oldestAgeSeconds;
const queueJobs = (b: Backlog, queueName: string, status: string) =>
  b.byQueue.find((r) => r.queueName === queueName && r.status === status)?.jobs ?? 0;
const unsentOn = (b: Backlog, queueName: string) => b.unpublished.find((r) => r.queueName === queueName)?.events ?? 0;

/** The counts of a backlog (not its ages, which move with the clock): what two readings must agree on. */
function countsOf(b: Backlog | undefined): string {
  if (!b || !Array.isArray(b.byStatus) || !Array.isArray(b.byQueue) || !Array.isArray(b.unpublished))
    return 'no backlog';
  return show({
    byStatus: b.byStatus.map((r) => [r.status, r.jobs]),
    byQueue: b.byQueue.map((r) => [r.queueName, r.status, r.jobs]),
    unpublished: b.unpublished.map((r) => [r.queueName, r.events]),
    gateCounter: b.gateCounter,
  });
}

// ---- who delivered what --------------------------------------------------------

type Role = 'fast' | 'bulk';
const ROLE_OF: Record<string, Role> = { [FAST_QUEUE]: 'fast', [BULK_QUEUE]: 'bulk' };

/** The worker processes (by route) that printed a delivery of this job. */
function deliveredBy(e: WorkersEvidence, jobId: string): Role[] {
  return (['fast', 'bulk'] as const).filter((role) => e.workers[role].deliveries.some((d) => d.jobId === jobId));
}

/** "3 fast jobs: each delivered by the fast worker only", or the jobs that were not. */
function describeDeliveries(e: WorkersEvidence, route: string): { ok: boolean; text: string } {
  const role = ROLE_OF[route]!;
  const jobs = e.jobs.filter((j) => j.route === route);
  const wrong = jobs.filter((j) => show(deliveredBy(e, j.jobId)) !== show([role]) || j.state !== 'succeeded');
  if (wrong.length === 0)
    return {
      ok: jobs.length > 0,
      text: `${jobs.length} ${role} job(s) delivered by the ${role} worker only, all succeeded`,
    };
  const details = wrong.map((j) => {
    const by = deliveredBy(e, j.jobId);
    // Each delivery's own words (claimed? published?), and the row's claim conditions if it is still queued.
    const lines = (['fast', 'bulk'] as const).flatMap((r) =>
      e.workers[r].deliveries
        .filter((d) => d.jobId === j.jobId)
        .map((d) => `${r}: claimed ${d.claimed}, published ${d.published}`),
    );
    const row = j.rowNow ? `; row now: ${j.rowNow}` : '';
    return `${role} job ${shortId(j.jobId)} delivered by ${by.length === 0 ? 'NO worker' : by.map((r) => `the ${r} worker`).join(' and ')}, ${show(j.state)}${lines.length > 0 ? ` (${lines.join('; ')})` : ''}${row}`;
  });
  return { ok: false, text: details.join('; ') };
}

/** Lines a worker printed for a queue that is not its own. */
function foreignQueues(e: WorkersEvidence, role: Role): string[] {
  const own = role === 'fast' ? FAST_QUEUE : BULK_QUEUE;
  return [...new Set(e.workers[role].deliveries.map((d) => d.queueName).filter((q) => q !== own))];
}

/** "BullMQ workers connected: exports.fast 1, exports.bulk 1". */
const connected = (w: QueueWorkers) =>
  `BullMQ workers connected: ${FAST_QUEUE} ${w[FAST_QUEUE]}, ${BULK_QUEUE} ${w[BULK_QUEUE]}`;

/** Why the drill stopped waiting for the fast jobs before its bound: what it saw holding them. */
function stuckBehindPause(d: DrillEvidence): string {
  const why = [
    ...(d.fastWorkerState === 'T' ? [`the fast worker is stopped too (process state "T")`] : []),
    ...(d.fastWaitingInBulk > 0 ? [`${d.fastWaitingInBulk} of their wake-ups wait in ${BULK_QUEUE}`] : []),
  ];
  return why.join(' and ');
}

const states = (jobs: TrackedJob[]) => show(jobs.map((j) => j.state));
const allSucceeded = (jobs: TrackedJob[]) => jobs.length > 0 && jobs.every((j) => j.state === 'succeeded');

export function buildRoutingChecks(deps: RoutingCheckDeps = {}): Check[] {
  const setup: RoutingSetup = { parts: deps.routingParts, timings: deps.routingTimings };
  // The workers, the backlog and the drill are one experiment: starting two worker processes once.
  const workersRun = sharedScenario(workersAndBacklog(setup));

  return [
    defineCheck({
      id: 'route-by-row-count',
      name: 'An export of at most 30 distinct products (duplicates counted once, over HTTP and through admitExport) is routed to exports.fast, a bigger one to exports.bulk, and the route is kept on its outbox event',
      timeoutMs: 60_000,
      scenario: routeByRowCount(setup),
      judge: (e) =>
        outcome(
          e.cases.every(
            (c) =>
              (c.via === 'admit' ? c.outcome === 'created' : c.outcome === '202') &&
              c.rows === c.distinct &&
              c.queues.length === 1 &&
              c.queues[0] === c.expected,
          ),
          e.cases
            .map((c) => {
              const queue = c.queues.length === 0 ? 'no event' : c.queues.join(' + ');
              const wrong = c.queues.length === 1 && c.queues[0] === c.expected ? '' : ` (EXPECTED ${c.expected})`;
              const how = c.via === 'admit' ? `admitExport: ${c.outcome}` : `POST ${c.outcome}`;
              return `${c.label} -> ${queue}${wrong} [${how}, ${show(c.rows)} rows in the snapshot]`;
            })
            .join('; ') + ` (fast <= ${e.fastMaxRows} rows; ${e.timings})`,
        ),
    }),
    defineCheck({
      id: 'each-queue-has-its-own-worker',
      name: 'Each queue has its own worker process: fast exports are delivered by the exports.fast worker, bulk exports by the exports.bulk worker, and all of them succeed',
      timeoutMs: 120_000,
      scenario: workersRun,
      judge: (e) => {
        const samePid = e.workers.fast.pid === e.workers.bulk.pid;
        const fast = describeDeliveries(e, FAST_QUEUE);
        const bulk = describeDeliveries(e, BULK_QUEUE);
        const strays = { fast: foreignQueues(e, 'fast'), bulk: foreignQueues(e, 'bulk') };
        const processes = samePid
          ? `ONE process (pid ${e.workers.fast.pid}) consumes both queues`
          : `fast worker pid ${e.workers.fast.pid}${strays.fast.length > 0 ? ` ALSO took ${show(strays.fast)}` : ''}, ` +
            `bulk worker pid ${e.workers.bulk.pid}${strays.bulk.length > 0 ? ` ALSO took ${show(strays.bulk)}` : ''}`;
        return outcome(
          !samePid && strays.fast.length === 0 && strays.bulk.length === 0 && fast.ok && bulk.ok,
          `${processes} (${connected(e.queueWorkers)}); ${fast.text}; ${bulk.text} (${e.timings})`,
        );
      },
    }),
    defineCheck({
      id: 'fast-completes-while-bulk-paused',
      name: "The course's drill: with the bulk worker paused for real (SIGSTOP), small exports still finish within 15 s while the big ones wait in exports.bulk; after SIGCONT the big ones finish too",
      timeoutMs: 120_000,
      scenario: workersRun,
      judge: ({ drill: d, timings, queueWorkers }) => {
        if (d === null)
          return outcome(
            false,
            `no worker is connected to ${BULK_QUEUE}, so there is no bulk worker to pause (${connected(queueWorkers)}): the drill was NOT run (${timings})`,
          );
        const paused = d.pausedState === 'T' || d.pausedState === 'unknown';
        const bulkWaited =
          show(d.bulkStatesWhilePaused) === show(['queued']) && d.bulkEventsSentWhilePaused === d.bulk.length;
        const fastInTime = d.fastDoneAfterMs !== null && d.fastDoneAfterMs <= d.boundMs && allSucceeded(d.fast);
        const posted = [...d.fast, ...d.bulk].every((j) => j.status === 202);
        return outcome(
          paused && posted && fastInTime && bulkWaited && d.bulkDoneAfterResumeMs !== null && allSucceeded(d.bulk),
          `bulk worker stopped (process state ${show(d.pausedState)}); ` +
            (fastInTime
              ? `${d.fast.length} fast jobs succeeded ${formatDuration(d.fastDoneAfterMs!)} after the submissions (bound ${formatDuration(d.boundMs)})`
              : d.fastStuckBehindPause
                ? `the fast jobs were ${states(d.fast)}, stuck behind the paused worker: ${stuckBehindPause(d)}; nothing could finish them before SIGCONT (NOT done within the bound)`
                : `the fast jobs were ${states(d.fast)} after ${formatDuration(d.boundMs)} (NOT done within the bound)`) +
            `; meanwhile the ${d.bulk.length} bulk jobs were ${show(d.bulkStatesWhilePaused)}${bulkWaited ? '' : ' (NOT held back)'}, ` +
            `their wake-ups sent: ${d.bulkEventsSentWhilePaused} of ${d.bulk.length}; after SIGCONT: bulk ` +
            (d.bulkDoneAfterResumeMs === null
              ? `${states(d.bulk)} (NOT finished)`
              : `${states(d.bulk)} in ${formatDuration(d.bulkDoneAfterResumeMs)}`) +
            ` (${timings})`,
        );
      },
    }),
    defineCheck({
      id: 'backlog-count-and-oldest-age',
      name: 'The backlog shows the queued and running jobs per status and per queue with the oldest age, and the unsent events; once the workers run it drains and the gate counter is back to 0, equal to the active jobs counted',
      timeoutMs: 120_000,
      scenario: workersRun,
      judge: (e) => {
        const b = e.before.backlog;
        const oldest = oldestIn(b, 'queued');
        const ageOk =
          oldest !== undefined &&
          oldest >= e.before.oldestAgeAtLeastS - AGE_TOLERANCE_S &&
          oldest <= e.before.oldestAgeAtMostS + 0.5;
        const countsOk =
          jobsIn(b, 'queued') === 4 &&
          jobsIn(b, 'running') === 1 &&
          queueJobs(b, FAST_QUEUE, 'queued') === 2 &&
          queueJobs(b, FAST_QUEUE, 'running') === 1 &&
          queueJobs(b, BULK_QUEUE, 'queued') === 2 &&
          unsentOn(b, FAST_QUEUE) === 3 &&
          unsentOn(b, BULK_QUEUE) === 2;
        const gateBefore = e.before.gateCounter === 5 && e.before.activeJobs === 5;
        const httpAgrees = e.before.http.status === 200 && countsOf(e.before.http.body) === countsOf(b);
        const a = e.after.backlog;
        const drained =
          e.drainedAfterMs !== null && a.byStatus.length === 0 && a.byQueue.length === 0 && a.unpublished.length === 0;
        const gateAfter = e.after.gateCounter === 0 && e.after.activeJobs === 0;
        return outcome(
          countsOk && ageOk && gateBefore && httpAgrees && drained && gateAfter,
          `before any worker: queued ${jobsIn(b, 'queued')} (oldest ${seconds(oldest)}; the first job was answered ` +
            `${e.before.oldestAgeAtLeastS.toFixed(2)}-${e.before.oldestAgeAtMostS.toFixed(2)} s before${ageOk ? '' : ': WRONG AGE'}), running ${jobsIn(b, 'running')}; ` +
            `${FAST_QUEUE} ${queueJobs(b, FAST_QUEUE, 'queued')} queued + ${queueJobs(b, FAST_QUEUE, 'running')} running, ${BULK_QUEUE} ${queueJobs(b, BULK_QUEUE, 'queued')} queued; ` +
            `unsent events ${FAST_QUEUE} ${unsentOn(b, FAST_QUEUE)}, ${BULK_QUEUE} ${unsentOn(b, BULK_QUEUE)}; ` +
            `GET /backlog ${httpAgrees ? 'agrees' : `DISAGREES (${e.before.http.status}: ${countsOf(e.before.http.body)})`}; ` +
            `gate counter ${e.before.gateCounter}, ${e.before.activeJobs} active. ` +
            `After the workers and the publisher ran: ` +
            (drained
              ? `drained in ${formatDuration(e.drainedAfterMs!)}`
              : `NOT drained (${countsOf(a)}, jobs ${states(e.jobs)}${e.publisherErrors[0] ? `, publisher: ${e.publisherErrors[0].slice(0, 100)}` : ''})`) +
            `, gate counter ${e.after.gateCounter} with ${e.after.activeJobs} active${gateAfter ? '' : ' (the counter does NOT match)'} (${e.timings})`,
        );
      },
    }),
  ];
}
