// Lesson 04's API, by name: the mutex, the shared counters, the producer and the
// threaded batch, and the increment race. Earlier lessons' names are imported from the
// lab that defines them (@tasks-lab/01-state-machine, @tasks-lab/02-bounded-async).
// Job store: lesson 01's MemoryJobStore (in memory, on the main thread).
export { Mutex } from './mutex.ts';
export {
  COUNTER_CELLS,
  createCounterBuffer,
  incrementCell,
  type CounterValues,
  readCounters,
} from './counters.ts';
export { pauseThread, wallClockMs } from './thread-time.ts';
export { startTsThread } from './ts-thread.ts';
export type { ToConsumer, FromConsumer, WorkSpan, ConsumerSetup } from './messages.ts';
export {
  THREADED_BATCH_OPTIONS,
  type ThreadedBatchSettings,
  COURSE_FAILING_IDS,
  INCREMENT_RACE_OPTIONS,
  type IncrementRaceSettings,
  productIds,
} from './options.ts';
export { type PutTiming, type FeedQueue, feedQueue } from './producer.ts';
export {
  CONSUMER_ENTRY,
  type ThreadedBatchOptions,
  type ThreadExit,
  type ItemError,
  type ThreadedBatchReport,
  ThreadedBatchTimeoutError,
  runThreadedBatch,
} from './batch.ts';
export {
  RACE_CELLS,
  type IncrementRaceOptions,
  type RaceSetup,
  type IncrementRaceReport,
  runIncrementRace,
} from './race.ts';
export { concurrentWorkMs } from './spans.ts';
