// Every slot check of lesson 14 must be able to fail: each case swaps in one broken part
// (test/fixtures/broken-slots.ts), runs the check's experiment for real (a fresh database,
// the API over HTTP, or a real run of the Job Scheduler handled with injected clocks, as
// verify does), and expects the check to fail, saying what went wrong.
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { describe } from 'vitest';
import { buildSlotChecks, type SlotCheckDeps } from '../scripts/slot-checks.ts';
import type { SlotParts } from '../scripts/slot-scenarios.ts';
import {
  alwaysExecutionLabel,
  alwaysPlannedKey,
  fullWithoutRetryAfter,
  hourlyLabel,
  labelFromServerClock,
  lookupThenSwallow,
  lookupWithoutFallback,
  plannedLabelFromClock,
  roundedExecutionLabel,
  slotAfterGate,
  slotsPassNoGate,
  swallowsDuplicateKey,
  uniqueKeyWithoutLookup,
} from './fixtures/broken-slots.ts';

const broken = (parts: Partial<SlotParts>) => (): SlotCheckDeps => ({ slotParts: parts });

describe('slot checks can fail', () => {
  const suite = canFailSuite(buildSlotChecks);
  // The same minute twice, then the next one.
  suite.breaks(
    'same-slot-twice-one-job',
    "the slot's duplicate key is swallowed inside the transaction",
    broken({ scheduleOnce: swallowsDuplicateKey }),
    {
      observed: /again: 202 scheduled .*\(\+1 job, \+0 slots, \+1 event, gate \+1\)/,
    },
  );
  suite.breaks(
    'same-slot-twice-one-job',
    'the unique key alone answers a taken slot (no look-up, no fallback)',
    broken({ scheduleOnce: uniqueKeyWithoutLookup }),
    { observed: /again: 500/ },
  );
  suite.breaks('next-minute-new-job', 'the label keeps the hour only', broken({ executionSlot: hourlyLabel }), {
    observed: /next minute: 200 already-scheduled shop-export:20260101T10 /,
  });
  suite.breaks(
    'next-minute-new-job',
    "the label ignores `at` and reads the server's clock",
    broken({ executionSlot: labelFromServerClock }),
    { observed: /next minute: 200 already-scheduled/ },
  );
  // Ten calls at once.
  suite.breaks(
    'concurrent-same-slot-one-job',
    "the slot's duplicate key is swallowed inside the transaction",
    broken({ scheduleOnce: swallowsDuplicateKey }),
    { observed: /10 × 202 scheduled.*\+10 jobs, \+1 slot/ },
  );
  suite.breaks(
    'concurrent-same-slot-one-job',
    'a plain look-up, then the insert, with no fallback on 1062',
    broken({ scheduleOnce: lookupWithoutFallback }),
    { observed: /× 500/ },
  );
  suite.breaks(
    'concurrent-same-slot-one-job',
    'the look-up is right but the racing losers swallow their 1062',
    broken({ scheduleOnce: lookupThenSwallow }),
    { observed: /[1-9] job\(s\) without a slot/ },
  );
  // A full service.
  suite.breaks(
    'duplicate-slot-while-full-already-scheduled',
    'the slot is looked at only after the gate',
    broken({ scheduleOnce: slotAfterGate }),
    { observed: /the taken slot again: 503 capacity-exceeded/ },
  );
  suite.breaks(
    'duplicate-slot-while-full-already-scheduled',
    'scheduled exports pass no gate',
    broken({ scheduleOnce: slotsPassNoGate }),
    { observed: /a new slot: 202 scheduled/ },
  );
  suite.breaks(
    'duplicate-slot-while-full-already-scheduled',
    'a full service answers 503 without Retry-After',
    broken({ scheduleOnce: fullWithoutRetryAfter }),
    { observed: /a new slot: 503 capacity-exceeded; / },
  );
  // The redelivered signal.
  suite.breaks(
    'redelivered-signal-course-label-two-slots',
    "the planned key is used where the course's label is asked for",
    broken({ handleTick: alwaysPlannedKey }),
    { observed: /already-scheduled/ },
  );
  suite.breaks(
    'redelivered-signal-course-label-two-slots',
    'the handling time is rounded to the nearest minute',
    broken({ handleTick: roundedExecutionLabel }),
    { observed: /already-scheduled/ },
  );
  suite.breaks(
    'redelivered-signal-planned-key-one-slot',
    "the course's label is used where the planned key is asked for",
    broken({ handleTick: alwaysExecutionLabel }),
    { observed: /\+2 jobs, \+2 slots/ },
  );
  suite.breaks(
    'redelivered-signal-planned-key-one-slot',
    "the planned label is made from the handling time, not the run's planned time",
    broken({ handleTick: plannedLabelFromClock }),
    { observed: /\+2 jobs, \+2 slots/ },
  );
  suite.coversEveryCheck();
});
