// Lesson 04's learning checks and fault drills. Every scenario starts real worker
// threads (tied to the check's signal: a check that runs out of time terminates them)
// and gathers a report; the judges below decide from that report alone.
// `deps` swaps in deliberately broken parts (a consumer that swallows errors, a bigger
// queue, a producer that drops ids instead of waiting, a race run without the lock) so
// test/checks.can-fail.test.ts can prove that each check is able to fail.
import { MemoryJobStore, type ExportJob } from '@tasks-lab/01-state-machine';
import { defineCheck, median, outcome, sharedScenario, type Check } from '@tasks-lab/lab-kit';
import { runThreadedBatch, type ThreadedBatchOptions, type ThreadedBatchReport } from '../src/batch.ts';
import { COURSE_FAILING_IDS, THREADED_BATCH_OPTIONS } from '../src/options.ts';
import type { FeedQueue } from '../src/producer.ts';
import { runIncrementRace, type IncrementRaceReport } from '../src/race.ts';
import { concurrentWorkMs } from '../src/spans.ts';

const COURSE = THREADED_BATCH_OPTIONS.defaults();

/** The lesson's expectations; the parts under test may be swapped, these never are. */
const LESSON = {
  items: COURSE.itemCount,
  threads: COURSE.threads,
  capacity: COURSE.capacity,
  workMs: COURSE.workMs,
  failingIds: COURSE_FAILING_IDS,
  twoFailingIds: [7, 13],
} as const;

export type RaceRun = (signal: AbortSignal) => Promise<IncrementRaceReport>;

export interface CheckDeps {
  /** The consumer thread's entry file. @defaultValue src/consumer-thread.ts */
  consumerEntry?: URL;
  /** The queue capacity the lesson's batch actually runs with. @defaultValue 4 */
  capacity?: number;
  /** The producer of the lesson's batch. @defaultValue feedQueue (src/producer.ts) */
  feed?: FeedQueue;
  /** The race run that should lose updates. @defaultValue runIncrementRace({ locked: false }) */
  raceWithoutLock?: RaceRun;
  /** The race run that should count exactly. @defaultValue runIncrementRace({ locked: true }) */
  raceWithLock?: RaceRun;
}

/** The lesson's batch, and the job record as the main thread's store holds it afterwards. */
interface LessonBatchEvidence {
  report: ThreadedBatchReport;
  storedJob: ExportJob | undefined;
}

export function buildChecks(deps: CheckDeps = {}): Check[] {
  const batch = (signal: AbortSignal, options: ThreadedBatchOptions = {}) =>
    runThreadedBatch({
      consumerEntry: deps.consumerEntry,
      capacity: deps.capacity,
      feed: deps.feed,
      ...options,
      signal,
    });
  // Six checks judge the same run of the lesson's batch: it runs once, on first use.
  const lessonBatch = sharedScenario(async (signal): Promise<LessonBatchEvidence> => {
    const store = new MemoryJobStore();
    const report = await batch(signal, { store });
    return { report, storedJob: await store.get(report.job.id) };
  });
  const raceWithoutLock: RaceRun = deps.raceWithoutLock ?? ((signal) => runIncrementRace({ locked: false, signal }));
  const raceWithLock: RaceRun = deps.raceWithLock ?? ((signal) => runIncrementRace({ locked: true, signal }));

  return [
    defineCheck({
      id: 'every-id-settled',
      name: `${LESSON.items} ids through ${LESSON.threads} threads: done + failed = ${LESSON.items}`,
      scenario: lessonBatch,
      judge: ({ report: r }) =>
        outcome(
          r.done === LESSON.items - LESSON.failingIds.length &&
            r.failed === LESSON.failingIds.length &&
            r.handedOut === LESSON.items,
          `${tally(r)}; ${r.handedOut} ids handed out to ${r.threads.length} threads`,
        ),
    }),
    defineCheck({
      id: 'errors-match-failing-id',
      name: `the errors match the failing id ${LESSON.failingIds.join(', ')}`,
      scenario: lessonBatch,
      judge: ({ report: r }) => {
        const named = r.errors.every((e) => e.message.includes(String(e.id)));
        return outcome(
          sameIds(errorIds(r), LESSON.failingIds) && named && r.errors.length === r.failed,
          `errors ${describeErrors(r)}; failed counter ${r.failed}`,
        );
      },
    }),
    defineCheck({
      id: 'threads-exit-cleanly',
      name: 'every thread exits cleanly',
      scenario: lessonBatch,
      judge: ({ report: r }) => {
        const codes = r.threads.map((t) => t.exitCode);
        return outcome(
          r.threads.length === LESSON.threads &&
            codes.every((code) => code === 0) &&
            r.threadsStillRunning === 0 &&
            r.threadErrors.length === 0,
          `${r.threads.length} 'exit' events, exit codes [${codes.join(', ')}], ` +
            `${r.threadsStillRunning} threads still running, ${r.threadErrors.length} thread errors` +
            (r.threadErrors.length > 0 ? ` ("${r.threadErrors[0]}")` : ''),
        );
      },
    }),
    defineCheck({
      id: 'queue-stays-bounded',
      name: `the queue never holds more than ${LESSON.capacity} ids, and the producer waits for room`,
      scenario: lessonBatch,
      // Both halves matter: a queue that is never full (too big, or a producer that drops
      // ids instead of waiting) stays short without ever holding the producer back.
      judge: ({ report: r }) =>
        outcome(
          r.peakQueueLength >= 1 && r.peakQueueLength <= LESSON.capacity && r.blockedPuts >= 1,
          `peak queue length ${r.peakQueueLength} (lesson capacity ${LESSON.capacity}); ` +
            `${r.blockedPuts} of ${r.ids.length} puts found the queue full and waited for room`,
        ),
    }),
    defineCheck({
      id: 'slow-work-outside-lock',
      name: 'the slow work runs outside the lock',
      scenario: lessonBatch,
      judge: ({ report: r }) => {
        const overlapMs = concurrentWorkMs(r.spans);
        const holdMs = median(r.spans.map((s) => s.lockHeldMs));
        // Outside the lock both threads sleep through their reads at the same time and the
        // lock is held for microseconds. Inside it, the threads take turns: overlap ~0, hold >= workMs.
        return outcome(
          r.spans.length === LESSON.items && overlapMs >= 2 * LESSON.workMs && holdMs < LESSON.workMs / 2,
          `threads worked at the same time for ${Math.round(overlapMs)} ms; ` +
            `median lock hold ${holdMs.toFixed(3)} ms vs ${LESSON.workMs} ms of work per id`,
        );
      },
    }),
    defineCheck({
      id: 'batch-recorded-as-job',
      name: "the batch is recorded as a job in the main thread's store",
      scenario: lessonBatch,
      judge: ({ report, storedJob: job }) => {
        if (!job) return outcome(false, `job ${report.job.id.slice(0, 8)}… is not in the store`);
        const namesFailures = LESSON.failingIds.every((id) => (job.error ?? '').includes(String(id)));
        return outcome(
          job.state === 'failed' && namesFailures && job.productIds.length === LESSON.items,
          `job ${job.id.slice(0, 8)}… for ${job.productIds.length} products is ${job.state} in the store: ${job.error ?? 'no error'}`,
        );
      },
    }),
    defineCheck({
      id: 'two-failures-still-total',
      name: `two failing ids (${LESSON.twoFailingIds.join(' and ')}) still total ${LESSON.items}`,
      scenario: (signal) => batch(signal, { failingIds: LESSON.twoFailingIds }),
      judge: (r) =>
        outcome(
          r.done + r.failed === LESSON.items && sameIds(errorIds(r), LESSON.twoFailingIds),
          `${tally(r)}; errors ${describeErrors(r)}`,
        ),
    }),
    defineCheck({
      id: 'drill-capacity-one-settles',
      name: `drill: queue capacity 1 with id ${LESSON.failingIds.join(', ')} failing still settles every id`,
      scenario: (signal) => batch(signal, { capacity: 1 }),
      judge: (r) => {
        const codes = r.threads.map((t) => t.exitCode);
        return outcome(
          r.done + r.failed === LESSON.items &&
            sameIds(errorIds(r), LESSON.failingIds) &&
            r.peakQueueLength <= 1 &&
            codes.every((code) => code === 0),
          `${tally(r)}; peak queue length ${r.peakQueueLength}; exit codes [${codes.join(', ')}]`,
        );
      },
    }),
    defineCheck({
      id: 'drill-race-loses-updates',
      name: 'drill: without the lock, concurrent increments are lost',
      scenario: raceWithoutLock,
      judge: (r) => outcome(r.counter < r.expected, describeRace(r)),
    }),
    defineCheck({
      id: 'lock-keeps-count-exact',
      name: 'with the lock, the count is exact',
      scenario: raceWithLock,
      judge: (r) => outcome(r.counter === r.expected && r.exitCodes.every((code) => code === 0), describeRace(r)),
    }),
  ];
}

function tally(r: ThreadedBatchReport): string {
  return `done ${r.done} + failed ${r.failed} = ${r.done + r.failed}`;
}

function errorIds(r: ThreadedBatchReport): number[] {
  return r.errors.map((e) => e.id);
}

function describeErrors(r: ThreadedBatchReport): string {
  if (r.errors.length === 0) return 'none';
  return r.errors.map((e) => `{id ${e.id}: "${e.message}"}`).join(', ');
}

function describeRace(r: IncrementRaceReport): string {
  const perThread = r.expected / r.threads;
  return (
    `${r.threads} threads x ${perThread} increments ${r.locked ? 'with' : 'without'} the lock: ` +
    `counter ${r.counter} of ${r.expected} (${r.lost} lost)`
  );
}

function sameIds(actual: readonly number[], expected: readonly number[]): boolean {
  const a = [...actual].sort((x, y) => x - y);
  const b = [...expected].sort((x, y) => x - y);
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
