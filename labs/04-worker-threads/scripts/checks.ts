// Lesson 04's learning checks and fault drills. Every check starts real worker threads.
// `deps` swaps in deliberately broken parts (a consumer that swallows errors, a
// bigger queue, a race run without the lock) so test/checks.can-fail.test.ts can
// prove each check is able to fail.
import { outcome, type Check } from '@tasks-lab/lab-kit';
import { runThreadedBatch, type ThreadedBatchOptions, type ThreadedBatchReport } from '../src/batch.ts';
import { THREADED_BATCH_DEFAULTS } from '../src/options.ts';
import { runIncrementRace, type IncrementRaceReport } from '../src/race.ts';
import { concurrentWorkMs, median } from '../src/spans.ts';

/** The lesson's expectations; the parts under test may be swapped, these never are. */
const LESSON = {
  items: THREADED_BATCH_DEFAULTS.itemCount,
  threads: THREADED_BATCH_DEFAULTS.threads,
  capacity: THREADED_BATCH_DEFAULTS.capacity,
  workMs: THREADED_BATCH_DEFAULTS.workMs,
  failingId: 7,
  twoFailingIds: [7, 13],
};

export interface CheckDeps {
  /** The consumer thread's entry file. @defaultValue src/consumer-thread.ts */
  consumerEntry?: URL;
  /** The queue capacity the batch actually runs with. @defaultValue 4 */
  capacity?: number;
  /** The race run that should lose updates. @defaultValue runIncrementRace({ locked: false }) */
  raceWithoutLock?: () => Promise<IncrementRaceReport>;
  /** The race run that should count exactly. @defaultValue runIncrementRace({ locked: true }) */
  raceWithLock?: () => Promise<IncrementRaceReport>;
}

export function buildChecks(deps: CheckDeps = {}): Check[] {
  const batch = (options: ThreadedBatchOptions = {}) =>
    runThreadedBatch({ consumerEntry: deps.consumerEntry, capacity: deps.capacity, ...options });
  // Most checks look at the same run of the lesson's batch: run it once, on first use.
  let lessonRun: Promise<ThreadedBatchReport> | undefined;
  const lessonBatch = () => (lessonRun ??= batch());
  const raceWithoutLock = deps.raceWithoutLock ?? (() => runIncrementRace({ locked: false }));
  const raceWithLock = deps.raceWithLock ?? (() => runIncrementRace({ locked: true }));

  return [
    {
      name: `${LESSON.items} ids through ${LESSON.threads} threads: done + failed = ${LESSON.items}`,
      run: async () => {
        const r = await lessonBatch();
        return outcome(
          r.done === LESSON.items - 1 && r.failed === 1 && r.handedOut === LESSON.items,
          `${tally(r)}; ${r.handedOut} ids handed out to ${r.threads.length} threads`,
        );
      },
    },
    {
      name: `the errors match the failing id ${LESSON.failingId}`,
      run: async () => {
        const r = await lessonBatch();
        const ids = r.errors.map((e) => e.id);
        const named = r.errors.every((e) => e.message.includes(String(e.id)));
        return outcome(
          sameIds(ids, [LESSON.failingId]) && named && r.errors.length === r.failed,
          `errors ${describeErrors(r)}; failed counter ${r.failed}`,
        );
      },
    },
    {
      name: 'every thread exits cleanly',
      run: async () => {
        const r = await lessonBatch();
        const codes = r.threads.map((t) => t.exitCode);
        return outcome(
          r.threads.length === LESSON.threads &&
            codes.every((code) => code === 0) &&
            r.threadsStillRunning === 0 &&
            r.threadErrors.length === 0,
          `${r.threads.length} 'exit' events, exit codes [${codes.join(', ')}], ` +
            `${r.threadsStillRunning} threads still running, ${r.threadErrors.length} thread errors`,
        );
      },
    },
    {
      name: `the queue never holds more than ${LESSON.capacity} ids`,
      run: async () => {
        const r = await lessonBatch();
        const held = r.putTimings.filter((t) => t.waitedMs >= LESSON.workMs / 2).length;
        return outcome(
          r.peakQueueLength >= 1 && r.peakQueueLength <= LESSON.capacity,
          `peak queue length ${r.peakQueueLength} (lesson capacity ${LESSON.capacity}); ` +
            `${held} of ${r.putTimings.length} puts waited for room`,
        );
      },
    },
    {
      name: 'the slow work runs outside the lock',
      run: async () => {
        const r = await lessonBatch();
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
    },
    {
      name: "the batch is recorded as a job in the main thread's store",
      run: async () => {
        const r = await lessonBatch();
        return outcome(
          r.job.state === 'failed' && (r.job.error ?? '').includes(String(LESSON.failingId)),
          `job ${r.job.id.slice(0, 8)}… queued -> running -> ${r.job.state}: ${r.job.error ?? 'no error'}`,
        );
      },
    },
    {
      name: `two failing ids (${LESSON.twoFailingIds.join(' and ')}) still total ${LESSON.items}`,
      run: async () => {
        const r = await batch({ failingIds: LESSON.twoFailingIds });
        return outcome(
          r.done + r.failed === LESSON.items && sameIds(r.errors.map((e) => e.id), LESSON.twoFailingIds),
          `${tally(r)}; errors ${describeErrors(r)}`,
        );
      },
    },
    {
      name: `drill: queue capacity 1 with id ${LESSON.failingId} failing still settles every id`,
      run: async () => {
        const r = await batch({ capacity: 1 });
        const codes = r.threads.map((t) => t.exitCode);
        return outcome(
          r.done + r.failed === LESSON.items &&
            sameIds(r.errors.map((e) => e.id), [LESSON.failingId]) &&
            r.peakQueueLength <= 1 &&
            codes.every((code) => code === 0),
          `${tally(r)}; peak queue length ${r.peakQueueLength}; exit codes [${codes.join(', ')}]`,
        );
      },
    },
    {
      name: 'drill: without the lock, concurrent increments are lost',
      run: async () => {
        const r = await raceWithoutLock();
        return outcome(r.counter < r.expected, describeRace(r));
      },
    },
    {
      name: 'with the lock, the count is exact',
      run: async () => {
        const r = await raceWithLock();
        return outcome(r.counter === r.expected && r.exitCodes.every((code) => code === 0), describeRace(r));
      },
    },
  ];
}

function tally(r: ThreadedBatchReport): string {
  return `done ${r.done} + failed ${r.failed} = ${r.done + r.failed}`;
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
