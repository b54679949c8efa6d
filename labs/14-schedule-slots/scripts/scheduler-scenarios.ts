// Lesson 14's scheduler experiments, run for real; scripts/scheduler-checks.ts judges what they saw.
//
//   signalToBulk        the fast and bulk worker PROCESSES (src/worker.ts) and the publisher run;
//                       `pnpm schedule` (src/schedule-cli.ts, a process too) registers a 1 s
//                       schedule. The first signal is a `schedule-tick` job on exports.fast; the
//                       fast worker turns it into a slot and a job whose outbox event names
//                       exports.bulk; the bulk worker delivers it and the job succeeds.
//   downtimeDrill       the course's drill with a 1 s interval instead of a minute: the schedule
//                       runs a couple of signals, the fast worker is stopped (SIGTERM) for 3.5
//                       intervals and started again. Which planned times got a slot? BullMQ keeps
//                       ONE overdue run (the one that was pending when the worker went), then
//                       plans the next one after "now": no slot per missed interval.
//   registerTwice       `pnpm schedule` twice: the upsert by id leaves one scheduler and one
//                       pending run (the course's "two beats double the runs" cannot happen).
//
// Each experiment has a fresh database of its own and a BullMQ prefix of its own
// (`tasks-lab14-x<hex>`, passed to every process it starts and obliterated afterwards), so it
// never takes, nor drops, the signals or wake-ups of a student's `pnpm worker:fast`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Queue } from 'bullmq';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { ensureInfra } from '@tasks-lab/infra';
import {
  FAULTS_ENV,
  launchProcess,
  sleep,
  startTsProcess,
  waitFor,
  withResources,
  type Exit,
  type LabProcess,
  type Resources,
} from '@tasks-lab/lab-kit';
import { openQueue } from '@tasks-lab/08-broker-worker';
import { readJob, WORKER_SHUTDOWN_GRACE_MS } from '@tasks-lab/11-mysql-leases';
import { publisherFaults, READ_EVENTS_OF_JOB, startPublisher, toOutboxEvent } from '@tasks-lab/12-outbox';
import { exportsAddress, FAST_QUEUE, scratchQueuePrefix } from '@tasks-lab/13-admission';
import { freshDatabase } from '../src/database.ts';
import {
  describeTimings,
  QUEUE_PREFIX,
  readShortScheduleOptions,
  SCHEDULE_OPTIONS,
  WORKER_PROCESS_OPTIONS,
  type ScheduleOptionValues,
} from '../src/options.ts';
import { SLOTS_WITH_PREFIX } from '../src/slot-queries.ts';
import { SLOT_PREFIX } from '../src/slot-keys.ts';
import { SCHEDULE_TICK_JOB_NAME } from '../src/tick.ts';

export const WORKER_SCRIPT = fileURLToPath(new URL('../src/worker.ts', import.meta.url));
export const SCHEDULE_CLI = fileURLToPath(new URL('../src/schedule-cli.ts', import.meta.url));
const WORKER_READY = /export worker \d+ ready/;

/** A process to start: a script of the lab (or a fixture) and its arguments. */
export interface ProcessCommand {
  script: string;
  args: string[];
}

/** The parts a broken variant may replace; the lab's own are used otherwise. */
export interface SchedulerParts {
  /** `pnpm worker:fast`: the export wake-ups and the signals of exports.fast. */
  fastWorker: ProcessCommand;
  /** `pnpm worker:bulk`: the wake-ups of exports.bulk. */
  bulkWorker: ProcessCommand;
  /** `pnpm schedule`: registers the schedule and exits. */
  schedule: ProcessCommand;
}

export const SCHEDULER_PARTS: SchedulerParts = {
  fastWorker: { script: WORKER_SCRIPT, args: ['fast'] },
  bulkWorker: { script: WORKER_SCRIPT, args: ['bulk'] },
  schedule: { script: SCHEDULE_CLI, args: [] },
};

export interface SchedulerSetup {
  parts?: Partial<SchedulerParts>;
  /** @defaultValue schedulerTimings() */
  timings?: ScheduleOptionValues;
}

/** The signal's interval in every scheduler experiment: the course's minute would make the drill take minutes. */
export const EXPERIMENT_EVERY_MS = 1000;

/**
 * The short timings, with a 1 s schedule even under USE_COURSE_TIMINGS=1 (the drill waits for a few
 * intervals), and slots named by their PLANNED time: the experiments read the planned time
 * back from each slot's key.
 */
export function schedulerTimings(env: NodeJS.ProcessEnv = process.env): ScheduleOptionValues {
  return { ...readShortScheduleOptions(env), scheduleEveryMs: EXPERIMENT_EVERY_MS, slotKeyFrom: 'planned' };
}

// ---------------------------------------------------------------------------------
// What every experiment has at hand

type ScheduleQueue = Queue<unknown, unknown, string>;

interface Lab {
  res: Resources;
  signal: AbortSignal;
  parts: SchedulerParts;
  timings: ScheduleOptionValues;
  pool: Pool;
  /** The experiment's BullMQ prefix (its processes' and its publisher's). */
  prefix: string;
  /** The experiment's exports.fast, to read the schedulers and the signal jobs back. */
  fastQueue: ScheduleQueue;
  /** Starts a worker process (the experiment's env, owned by its scope) and waits for its ready line. */
  launch: (command: ProcessCommand) => Promise<LabProcess>;
  /** Runs a command that exits (`pnpm schedule`) and returns what it printed. */
  run: (command: ProcessCommand) => Promise<CommandRun>;
}

export interface CommandRun {
  exit: Exit;
  /** The planned time it printed ("next planned run <ISO>"), if any. */
  nextPlanned: string | undefined;
  /** Its last line, for the observation. */
  lastLine: string;
}

async function withLab<T>(
  signal: AbortSignal,
  setup: SchedulerSetup,
  label: string,
  work: (lab: Lab) => Promise<T>,
): Promise<T> {
  return withResources(signal, async (res) => {
    const parts = { ...SCHEDULER_PARTS, ...setup.parts };
    const timings = setup.timings ?? schedulerTimings();
    await ensureInfra({ services: ['redis', 'mysql'] });
    const db = res.add(await freshDatabase(label, { settings: timings }), (d) => d.drop());
    const prefix = scratchQueuePrefix(res, QUEUE_PREFIX);
    const artifactsDir = await artifactFolder(res);
    const fastQueue = res.add(await openQueue<unknown, unknown, string>(exportsAddress(FAST_QUEUE, prefix)), (q) =>
      q.close(),
    );
    // One environment for every process: the schedule's options, and the database, prefix
    // and artifacts folder of this experiment (`pnpm schedule` reads the same two names).
    // No fault points: a LAB_FAULTS meant for something else must not reach these processes.
    const env = {
      ...SCHEDULE_OPTIONS.toEnv(timings),
      ...WORKER_PROCESS_OPTIONS.toEnv({ database: db.name, artifactsDir, queuePrefix: prefix }),
      [FAULTS_ENV]: '',
    };
    const launch = (command: ProcessCommand) =>
      launchProcess(command.script, { args: command.args, ready: WORKER_READY, resources: res, env });
    const run = async (command: ProcessCommand): Promise<CommandRun> => {
      const proc = res.add(startTsProcess(command.script, { args: command.args, env }), (p) => p.kill('SIGKILL'));
      const exit = await proc.exited;
      const lines = proc.output().trim().split('\n');
      return {
        exit,
        nextPlanned: /next planned run (\S+)/.exec(proc.output())?.[1],
        lastLine: lines[lines.length - 1] ?? '',
      };
    };
    return work({ res, signal: res.signal, parts, timings, pool: db.pool, prefix, fastQueue, launch, run });
  });
}

async function artifactFolder(res: Resources): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'tasks-lab14-artifacts-'));
  res.defer(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

// ---------------------------------------------------------------------------------
// Reading what happened: the slot table, and the workers' own lines

export interface SlotRow {
  slotKey: string;
  jobId: string;
  /** The planned time (ms) named in the key; undefined for a key not made by plannedSlot. */
  plannedAt: number | undefined;
}

/** shop-export:<schedule>:20260101T100000.123 (plannedSlot's key for an interval under a minute). */
const PLANNED_KEY = /^shop-export:.+:(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})\.(\d{3})$/;

/** The planned instant (ms) a slot key names, or undefined. */
export function plannedAtOfSlot(slotKey: string): number | undefined {
  const m = PLANNED_KEY.exec(slotKey);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second, ms] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}

/** Every slot of the experiment's database (its own: the database is fresh), by planned time. */
async function readSlots(pool: Pool): Promise<SlotRow[]> {
  const [rows] = await pool.query<RowDataPacket[]>(SLOTS_WITH_PREFIX, [`${SLOT_PREFIX}:%`]);
  const slots = rows.map((row) => ({
    slotKey: String(row.slot_key),
    jobId: String(row.job_id),
    plannedAt: plannedAtOfSlot(String(row.slot_key)),
  }));
  return slots.sort((a, b) => (a.plannedAt ?? 0) - (b.plannedAt ?? 0));
}

/** One `exports.fast tick planned … handled …: slot … <status>[ job …] (BullMQ id …)` line of the fast worker. */
export interface TickLine {
  plannedAt: string;
  handledAt: string;
  slotKey: string;
  status: string;
  jobId: string | undefined;
  bullmqId: string;
}

const TICK_LINE =
  /^exports\.fast tick planned (\S+) handled (\S+): slot (\S+) (\S+)(?: job (\S+))? \(BullMQ id ([^)]+)\)$/gm;

export function ticksIn(output: string): TickLine[] {
  return [...output.matchAll(TICK_LINE)].map((m) => ({
    plannedAt: m[1]!,
    handledAt: m[2]!,
    slotKey: m[3]!,
    status: m[4]!,
    jobId: m[5],
    bullmqId: m[6]!,
  }));
}

const DELIVERY_LINE =
  /^(\S+) delivered job ([0-9a-f-]{36}) \(BullMQ id [^)]*\): claimed (true|false), published (true|false)$/gm;

/** The jobs a worker process reported delivering (lesson 13's line). */
export function deliveredJobsIn(output: string): string[] {
  return [...output.matchAll(DELIVERY_LINE)].map((m) => m[2]!);
}

/** Lines saying a job failed (an unknown job name, a tick that threw). */
const failuresIn = (output: string): string[] =>
  output
    .split('\n')
    .filter((line) => / failed: /.test(line))
    .slice(0, 3);

/** The events of a job: which queue each one names. Parameters: [jobId]. */
async function eventQueuesOf(pool: Pool, jobId: string): Promise<string[]> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_EVENTS_OF_JOB, [jobId]);
  return rows.map(toOutboxEvent).map((e) => e.queueName);
}

/** The value, or undefined once `timeoutMs` passed (a check reports what it saw; only an abort throws). */
async function within<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<T | undefined> {
  return waitFor(what, probe, { timeoutMs, intervalMs: 100, signal }).catch((err: unknown) => {
    if (signal.aborted) throw err;
    return undefined;
  });
}

// ---------------------------------------------------------------------------------
// 1. The signal on exports.fast, the export on exports.bulk

/** How long the first signal may take to become a succeeded export (it takes a poll of the publisher and a delivery). */
const SIGNAL_TO_EXPORT_MS = 10_000;

export interface SignalEvidence {
  timings: string;
  scheduleId: string;
  schedule: CommandRun;
  /** The fast worker's signal lines. */
  ticks: TickLine[];
  /** The first slot in the table and its job. */
  slot: SlotRow | undefined;
  /** That slot's signal, read back from BullMQ by the id its line names. */
  tickJob: { id: string; name: string; queueName: string; plannedAt: number } | undefined;
  eventQueues: string[];
  state: string | undefined;
  deliveredBy: ('fast' | 'bulk')[];
  /** ms from `pnpm schedule` to the job succeeded (null: not within the wait). */
  succeededAfterMs: number | null;
  failures: string[];
  publisherErrors: string[];
}

export function signalToBulk(setup: SchedulerSetup): (signal: AbortSignal) => Promise<SignalEvidence> {
  return (signal) =>
    withLab(signal, setup, 'signal', async (lab) => {
      const { pool, timings, parts } = lab;
      const publisherErrors: string[] = [];
      const publisher = await startPublisher({
        pool,
        timings,
        prefix: lab.prefix,
        faults: publisherFaults({}),
        report: (line) => publisherErrors.push(line),
      });
      lab.res.add(publisher, (p) => p.close());

      // The workers start while `pnpm schedule` registers: each process takes a second or two
      // to start, and the order does not matter (a signal, or an export, that comes before its
      // worker is ready waits in its queue). succeededAfterMs counts from `pnpm schedule`'s start.
      const scheduledAt = Date.now();
      const [fast, bulk, schedule] = await Promise.all([
        lab.launch(parts.fastWorker),
        lab.launch(parts.bulkWorker),
        lab.run(parts.schedule),
      ]);
      const outcome = await within<'succeeded' | 'no-schedule-on-fast'>(
        'the first scheduled export to succeed',
        async () => {
          const [first] = await readSlots(pool);
          if (first !== undefined && (await readJob(pool, first.jobId))?.status === 'succeeded') return 'succeeded';
          // `pnpm schedule` has exited: if it left no scheduler on exports.fast and no signal
          // has made a slot, no schedule-tick will ever reach the fast worker in this
          // experiment, and waiting out SIGNAL_TO_EXPORT_MS would show the same empty table.
          if (first === undefined && (await lab.fastQueue.getJobSchedulers()).length === 0)
            return 'no-schedule-on-fast';
          return false;
        },
        SIGNAL_TO_EXPORT_MS,
        lab.signal,
      );
      const succeededAfterMs = outcome === 'succeeded' ? Date.now() - scheduledAt : null;
      const [slot] = await readSlots(pool);
      // The row finishes inside the delivery; the worker's lines are printed a moment later.
      // With no slot there is no line of it to wait for: only a worker's word on what became of
      // the signal (a failed job: the schedule may be on another queue), which the judge quotes.
      const lineOf = () => ticksIn(fast.output()).find((t) => t.slotKey === slot?.slotKey);
      const linesPrinted = () =>
        slot === undefined
          ? failuresIn(fast.output() + bulk.output()).length > 0
          : lineOf() !== undefined && deliveredJobsIn(bulk.output() + fast.output()).includes(slot.jobId);
      await within('the lines of the signal and the delivery', async () => linesPrinted(), 3000, lab.signal);
      const deliveredBy = (['fast', 'bulk'] as const).filter(
        (role) => slot !== undefined && deliveredJobsIn({ fast, bulk }[role].output()).includes(slot.jobId),
      );
      return {
        timings: describeTimings(timings),
        scheduleId: timings.scheduleId,
        schedule,
        ticks: ticksIn(fast.output()),
        slot,
        tickJob: await readTickJob(lab.fastQueue, lineOf()),
        eventQueues: slot ? await eventQueuesOf(pool, slot.jobId) : [],
        state: slot ? (await readJob(pool, slot.jobId))?.status : undefined,
        deliveredBy: [...deliveredBy],
        succeededAfterMs,
        failures: [...failuresIn(fast.output()), ...failuresIn(bulk.output())],
        publisherErrors: publisherErrors.slice(0, 3),
      };
    });
}

/** The signal's BullMQ job as Redis keeps it (a finished signal is kept: removeOnComplete 100). */
async function readTickJob(queue: ScheduleQueue, line: TickLine | undefined): Promise<SignalEvidence['tickJob']> {
  if (!line) return undefined;
  const job = await queue.getJob(line.bullmqId);
  if (!job) return undefined;
  return { id: String(job.id), name: job.name, queueName: job.queueName, plannedAt: Date.parse(line.plannedAt) };
}

// ---------------------------------------------------------------------------------
// 2. No backfill after downtime

/** The fast worker stays down this many intervals (more than two: the course stops beat for two minutes). */
export const DOWN_INTERVALS = 3.5;
/** After the restart, the experiment watches this many intervals: the overdue run, then the cadence again (less once a backfill shows). */
export const WATCH_INTERVALS = 2.2;

export interface WorkerRun {
  pid: number;
  exit: Exit;
  ticks: TickLine[];
  failures: string[];
}

export interface DowntimeEvidence {
  timings: string;
  everyMs: number;
  /** The planned time of the last slot made before the stop (undefined: none was). */
  lastPlannedBeforeStop: number | undefined;
  slotsBeforeStop: number;
  /** When the first fast worker had exited (SIGTERM), and when the second was started. */
  stoppedAt: number;
  restartedAt: number;
  /** Its ready line, a moment later (a process takes a while to start). */
  readyAt: number;
  /** Every slot at the end, by planned time. */
  slots: SlotRow[];
  runs: WorkerRun[];
  schedule: CommandRun;
}

export function downtimeDrill(setup: SchedulerSetup): (signal: AbortSignal) => Promise<DowntimeEvidence> {
  return (signal) =>
    withLab(signal, setup, 'downtime', async (lab) => {
      const { pool, timings, parts } = lab;
      const every = timings.scheduleEveryMs;
      // Only the fast worker: which slots exist is decided by the signals alone (the bulk
      // worker and the publisher run the exports; they do not make or skip a slot).
      // The worker starts while `pnpm schedule` registers: two processes starting take a
      // second or two each, and the order does not matter here (a signal planned before the
      // worker is ready waits in exports.fast and makes the same slot when it is handled).
      const [first, schedule] = await Promise.all([lab.launch(parts.fastWorker), lab.run(parts.schedule)]);
      await within(
        'two signals before the stop',
        async () => (await readSlots(pool)).length >= 2,
        10 * every,
        lab.signal,
      );

      const firstExit = await first.stop(WORKER_SHUTDOWN_GRACE_MS);
      const stoppedAt = Date.now();
      const before = await readSlots(pool);
      await sleep(DOWN_INTERVALS * every, lab.signal);

      const planned = before.map((s) => s.plannedAt).filter((t): t is number => t !== undefined);
      const lastBefore = planned.length > 0 ? Math.max(...planned) : undefined;
      const restartedAt = Date.now();
      const second = await lab.launch(parts.fastWorker);
      const readyAt = Date.now();
      // Watch the restart for WATCH_INTERVALS, or less once a SECOND slot has appeared for the
      // planned times of the downtime: a slot is never taken back, so the drill's answer (more
      // than the one overdue run: a backfill) is known, and watching longer would change nothing.
      // A run that keeps no backfill never sees that, and watches the whole time.
      const inDowntime = (s: SlotRow) =>
        lastBefore !== undefined && s.plannedAt !== undefined && s.plannedAt > lastBefore && s.plannedAt <= restartedAt;
      await within(
        'a second slot for the downtime (a backfill)',
        async () => (await readSlots(pool)).filter(inDowntime).length > 1,
        WATCH_INTERVALS * every,
        lab.signal,
      );
      const secondExit = await second.stop(WORKER_SHUTDOWN_GRACE_MS);

      return {
        timings: describeTimings(timings),
        everyMs: every,
        lastPlannedBeforeStop: lastBefore,
        slotsBeforeStop: before.length,
        stoppedAt,
        restartedAt,
        readyAt,
        slots: await readSlots(pool),
        runs: [workerRun(first, firstExit), workerRun(second, secondExit)],
        schedule,
      };
    });
}

const workerRun = (proc: LabProcess, exit: Exit): WorkerRun => ({
  pid: proc.pid,
  exit,
  ticks: ticksIn(proc.output()),
  failures: failuresIn(proc.output()),
});

// ---------------------------------------------------------------------------------
// 3. One schedule per id

export interface RegisterEvidence {
  timings: string;
  scheduleId: string;
  runs: CommandRun[];
  /** The schedulers on the experiment's exports.fast after both runs. */
  schedulers: { id: string; every: number | undefined; next: number | undefined }[];
  /** The signals waiting to run (no worker runs in this experiment). */
  pendingRuns: { id: string; name: string }[];
}

export function registerTwice(setup: SchedulerSetup): (signal: AbortSignal) => Promise<RegisterEvidence> {
  return (signal) =>
    withLab(signal, setup, 'register', async (lab) => {
      // One after the other, as two deploys (or a student running it twice) would.
      const runs = [await lab.run(lab.parts.schedule), await lab.run(lab.parts.schedule)];
      const schedulers = await lab.fastQueue.getJobSchedulers();
      const pending = await lab.fastQueue.getJobs(['waiting', 'delayed', 'prioritized']);
      return {
        timings: describeTimings(lab.timings),
        scheduleId: lab.timings.scheduleId,
        runs,
        schedulers: schedulers.map((s) => ({ id: s.key, every: s.every, next: s.next })),
        pendingRuns: pending
          .filter((job) => job.name === SCHEDULE_TICK_JOB_NAME)
          .map((job) => ({ id: String(job.id), name: job.name })),
      };
    });
}
