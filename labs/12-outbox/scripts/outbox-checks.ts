// Lesson 12's outbox checks: the submit transaction (job and event together, or neither),
// the publisher's send and confirm, the nudge, and two publishers sharing the work with
// the index that matches the claim (the course's index measured next to it).
// buildOutboxChecks(deps) builds them without starting anything; deps swap in broken
// parts for the can-fail tests, or point them at a test's own database.
import type { RedisOptions } from 'ioredis';
import { defineCheck, fail, outcome, pass, sharedScenario, SECOND, type Check } from '@tasks-lab/lab-kit';
import { brokerConnection } from '@tasks-lab/08-broker-worker';
import { readShortOutboxOptions, type OutboxOptionValues } from '../src/options.ts';
import {
  NUDGE_POLL_MS,
  nudgeLatency,
  publisherPipeline,
  REAL_OUTBOX_PARTS,
  submitTransaction,
  twoPublishers,
  type LockProbe,
  type OutboxContext,
  type OutboxParts,
  type ThroughputRun,
} from './outbox-scenarios.ts';

export interface OutboxCheckDeps {
  /** Broken parts for the can-fail tests; the rest stay real. */
  outboxParts?: Partial<OutboxParts>;
  /** The database to run in (a test's fresh one). @defaultValue a scratch database per experiment, dropped after it */
  database?: string | (() => Promise<string>);
  /** @defaultValue the short timings (USE_COURSE_TIMINGS=1 forces the course's) */
  timings?: OutboxOptionValues;
  /** @defaultValue the lab's Redis */
  connection?: RedisOptions;
  /**
   * The nudge experiment's poll interval. A can-fail case whose nudge never arrives shortens
   * it: its event is then sent by that poll, sooner. @defaultValue NUDGE_POLL_MS (10 s)
   */
  nudgePollMs?: number;
}

const short = (id: string | undefined | null) => (id ? id.slice(0, 8) : 'none');

const describeProbe = (p: LockProbe | undefined) =>
  p
    ? `${p.index} index (${p.plan}): A's LIMIT 1 claim took ${p.aTook.length} and left ${p.lockedByA} of ${p.eligible} rows locked; ` +
      `B got ${p.bError ? `an error (${p.bError})` : p.bGot.length === 0 ? 'NOTHING' : `event ${short(p.bGot[0])}`}`
    : 'no probe';

const describeRun = (r: ThroughputRun) =>
  `${r.index} index, ${r.publishers} publisher${r.publishers > 1 ? 's' : ''}: ${(r.events / r.seconds).toFixed(0)} events/s ` +
  `(${r.events} in ${r.seconds.toFixed(2)} s, split ${r.perPublisher.join('/')}${r.unsentAfter > 0 ? `, ${r.unsentAfter} UNSENT` : ''}${r.sent > r.events ? `, ${r.sent - r.events} DUPLICATE sends` : ''})`;

export function buildOutboxChecks(deps: OutboxCheckDeps = {}): Check[] {
  const timings = deps.timings ?? readShortOutboxOptions();
  const nudgePollMs = deps.nudgePollMs ?? NUDGE_POLL_MS;
  const ctx: OutboxContext = {
    parts: { ...REAL_OUTBOX_PARTS, ...deps.outboxParts },
    timings,
    // A function (the drills' verify database) is not for these experiments: they make their own.
    database: typeof deps.database === 'string' ? deps.database : undefined,
    connection: deps.connection ?? brokerConnection(),
    nudgePollMs,
  };
  const submit = sharedScenario((signal) => submitTransaction(ctx, signal));
  const during = (e: { timings: string }) => `(${e.timings})`;

  return [
    defineCheck({
      id: 'submit-writes-job-and-event',
      name: 'A submission commits the queued job and its unsent outbox event together',
      timeoutMs: 30 * SECOND,
      scenario: submit,
      judge: (e) => {
        const { normal: n } = e;
        return outcome(
          n.jobs === 1 &&
            n.events === 1 &&
            n.job?.status === 'queued' &&
            n.event?.jobId === n.jobId &&
            n.event.sentAt === null &&
            n.eventId !== n.jobId,
          `job ${short(n.jobId)}: ${n.jobs} job row (${n.job?.status ?? 'missing'}), ${n.events} event row (event ${short(n.eventId)}, ` +
            `sent_at ${n.event ? (n.event.sentAt ? 'SET' : 'NULL') : 'no row'}); nothing was sent by the submit ${during(e)}`,
        );
      },
    }),
    defineCheck({
      id: 'fault-after-job-insert-leaves-neither',
      name: 'A failure between the job insert and the event insert leaves neither row',
      timeoutMs: 30 * SECOND,
      scenario: submit,
      judge: (e) => {
        const f = e.faulted;
        if (f.error === undefined)
          return fail(
            `the submission with LAB_FAULTS=after-job-insert:throw did not fail; job ${short(f.jobId)} has ${f.jobs} job and ${f.events} event rows`,
          );
        return outcome(
          f.errorCode === 'fault-injected' && f.jobs === 0 && f.events === 0,
          `fault at after-job-insert (${f.errorCode ?? f.error}); by job id ${short(f.jobId)}: ${f.jobs} job rows, ${f.events} event rows ${during(e)}`,
        );
      },
    }),
    defineCheck({
      id: 'publisher-sends-and-confirms',
      name: 'The publisher sends the event to BullMQ with the event id as job id, confirms it, and the worker finishes the job',
      timeoutMs: 60 * SECOND + 2 * (timings.claimMs + timings.pollMs),
      scenario: (signal) => publisherPipeline(ctx, signal),
      judge: (e) => {
        const problems: string[] = [];
        if (!e.event?.sentAt) problems.push('sent_at is NULL');
        if (!e.bullJob)
          problems.push(`no BullMQ job has the event id ${short(e.eventId)} (the queue holds ${e.bullJobCount})`);
        else if (e.bullJob.jobIdInData !== e.jobId)
          problems.push(`BullMQ job ${short(e.bullJob.id)} carries job_id ${short(e.bullJob.jobIdInData)}`);
        if (e.bullJobCount !== 1) problems.push(`the queue holds ${e.bullJobCount} BullMQ jobs for one event`);
        if (e.job?.status !== 'succeeded' || !e.job.resultRef)
          problems.push(`the job is ${e.job?.status ?? 'missing'} with result_ref ${e.job?.resultRef ?? 'none'}`);
        const seen =
          `event ${short(e.eventId)} sent_at ${e.event?.sentAt ? 'set' : 'NULL'}, ${e.event?.sendAttempts ?? 0} send attempt(s); BullMQ job id ${short(e.bullJob?.id)} ` +
          `(${e.bullJob?.state ?? 'none'}); job ${short(e.jobId)} ${e.job?.status ?? 'missing'}; publisher sent ${e.publisherStats.sent}, confirmed ${e.publisherStats.confirmed}` +
          (e.errors.length > 0 ? `; errors: ${e.errors.slice(0, 2).join(' | ')}` : '');
        return problems.length === 0
          ? pass(`${seen} ${during(e)}`)
          : fail(`${problems.join('; ')} — ${seen} ${during(e)}`);
      },
    }),
    defineCheck({
      id: 'nudge-wakes-idle-publisher',
      name: 'An idle publisher sends a new event within a fraction of its poll interval, woken by the nudge',
      timeoutMs: 30 * SECOND + nudgePollMs,
      scenario: (signal) => nudgeLatency(ctx, signal),
      judge: (e) => {
        // "Well under" the poll interval: a tenth of it. A send that waited for the poll takes the whole interval.
        const limitMs = e.pollMs / 10;
        const seen = `commit to sent_at ${e.latencyMs === undefined ? 'never (not sent)' : `${e.latencyMs} ms`} with a ${e.pollMs / 1000} s poll; woken by ${e.nudges} nudge(s), ${e.polls} poll(s)`;
        return outcome(
          e.latencyMs !== undefined && e.latencyMs < limitMs && e.nudges >= 1,
          `${seen} (limit ${limitMs} ms) ${during(e)}`,
        );
      },
    }),
    defineCheck({
      id: 'two-publishers-share-the-work',
      name: "Two publishers claim different events at once with the index that matches the claim's ORDER BY (the course's index measured beside it)",
      timeoutMs: 180 * SECOND,
      scenario: (signal) => twoPublishers(ctx, signal),
      judge: (e) => {
        const matching = e.probes.find((p) => p.index === 'matching');
        const course = e.probes.find((p) => p.index === 'course');
        const runs = e.runs.map(describeRun).join('; ');
        const duplicates = e.runs.filter((r) => r.sent > r.events || r.unsentAfter > 0);
        const seen = `${describeProbe(matching)}. ${describeProbe(course)}. Throughput: ${runs} ${during(e)}`;
        if (
          !matching ||
          matching.bError ||
          matching.bGot.length !== 1 ||
          matching.aTook.includes(matching.bGot[0] ?? '')
        ) {
          return fail(`while A held its claim, B did not get the next event — ${seen}`);
        }
        if (duplicates.length > 0) return fail(`events sent more than once, or left unsent — ${seen}`);
        return pass(seen);
      },
    }),
  ];
}
