// A check that cannot fail proves nothing. Each case below breaks one real part (a
// consumer thread with a different design, a bigger queue, a race run with or without
// the lock), runs the check's scenario with real threads, and expects the check to fail.
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { describe } from 'vitest';
import { buildChecks } from '../scripts/checks.ts';
import type { FeedQueue, PutTiming } from '../src/producer.ts';
import { runIncrementRace } from '../src/race.ts';

const fixture = (file: string) => new URL(`./fixtures/${file}`, import.meta.url);
/** Catches a failed read and does nothing with it: no failed count, no error message. */
const swallowingConsumer = { consumerEntry: fixture('swallowing-consumer-thread.ts') };
/** Lets a failed read escape: the thread dies with exit code 1. */
const crashingConsumer = { consumerEntry: fixture('crashing-consumer-thread.ts') };
/** Holds the lock during the slow read: the threads take turns. */
const workInsideLock = { consumerEntry: fixture('work-inside-lock-consumer-thread.ts') };

/**
 * Broken: a producer that drops an id when the queue is full instead of waiting for room
 * (a "refusal" nobody hears about). The queue stays short, but it never holds the producer back.
 */
const dropsWhenFull: FeedQueue = async (queue, ids) => {
  const timings: PutTiming[] = [];
  for (const id of ids) {
    if (queue.isFull) continue; // the bug: the id is lost
    await queue.put(id);
    timings.push({ id, waitedMs: 0 });
  }
  queue.close();
  return timings;
};

describe('the checks fail when a part of the lesson is broken', () => {
  const suite = canFailSuite(buildChecks);

  suite.breaks('every-id-settled', 'a consumer swallows the failed read', () => swallowingConsumer, {
    observed: /done 19 \+ failed 0 = 19/,
  });
  suite.breaks('errors-match-failing-id', 'a consumer swallows the failed read', () => swallowingConsumer, {
    observed: /errors none/,
  });
  suite.breaks(
    'threads-exit-cleanly',
    'a consumer lets the failed read escape and its thread dies',
    () => crashingConsumer,
    {
      observed: /exit codes \[[^\]]*1[^\]]*\].*1 thread errors/,
    },
  );
  suite.breaks('queue-stays-bounded', 'the queue has capacity 8', () => ({ capacity: 8 }), {
    observed: /peak queue length (5|6|7|8) /,
  });
  suite.breaks(
    'queue-stays-bounded',
    'the queue is big enough never to block (capacity 1000)',
    () => ({ capacity: 1_000 }),
    {
      observed: /; 0 of 20 puts found the queue full/,
    },
  );
  suite.breaks(
    'queue-stays-bounded',
    'the producer drops ids when the queue is full instead of waiting',
    () => ({ feed: dropsWhenFull }),
    {
      observed: /peak queue length [1-4] \(lesson capacity 4\); 0 of 20 puts found the queue full/,
    },
  );
  suite.breaks('slow-work-outside-lock', 'a consumer does its slow read while holding the lock', () => workInsideLock, {
    observed: /median lock hold ([5-9]\d|\d{3,})\.\d+ ms/,
  });
  suite.breaks(
    'batch-recorded-as-job',
    'a consumer swallows the failed read, so the job cannot name it',
    () => swallowingConsumer,
    {
      observed: /failed ids: none reported/,
    },
  );
  suite.breaks('two-failures-still-total', 'a consumer swallows the failed reads', () => swallowingConsumer, {
    observed: /done 18 \+ failed 0 = 18/,
  });
  suite.breaks(
    'drill-capacity-one-settles',
    'a consumer lets the failed read escape and its thread dies',
    () => crashingConsumer,
    {
      observed: /exit codes \[[^\]]*1[^\]]*\]/,
    },
  );
  suite.breaks(
    'drill-race-loses-updates',
    'the drill race runs with the lock after all',
    () => ({ raceWithoutLock: (signal: AbortSignal) => runIncrementRace({ locked: true, signal }) }),
    { observed: /counter 200 of 200/ },
  );
  suite.breaks(
    'lock-keeps-count-exact',
    'the race runs without the lock',
    () => ({ raceWithLock: (signal: AbortSignal) => runIncrementRace({ locked: false, signal }) }),
    { observed: /without the lock: counter \d+ of 200/ },
  );

  suite.coversEveryCheck();
});
