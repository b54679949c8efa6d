// Every wake-up check of lesson 15 must be able to fail: each case breaks one real part (a
// claim from test/fixtures/broken-wakeup.ts, or the fault point switched off), runs the
// check's experiment for real (a fresh database, lesson 12's publisher, a BullMQ worker), as
// verify does, and expects the check to fail, saying what went wrong.
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { describe } from 'vitest';
import { buildWakeupChecks, type WakeupCheckDeps } from '../scripts/wakeup-checks.ts';
import { skipLockedOnly, updatesByIdAlone, waitsWithoutRecheck } from './fixtures/broken-wakeup.ts';

const broken = (deps: WakeupCheckDeps) => (): WakeupCheckDeps => deps;

describe('wake-up checks can fail', () => {
  const suite = canFailSuite(buildWakeupChecks);
  // The reproduction must depend on the lock being held: without the fault nothing is lost.
  suite.breaks(
    'lost-wake-up-course-claim',
    'the confirmation holds the job lock only for its own statements (no fault point)',
    broken({ wakeupFaultDelayMs: 0 }),
    {
      observed: /claimed 5, LOST 0 of 5/,
    },
  );
  suite.breaks(
    'lost-wake-up-fixed',
    'the "fixed" claim is really SKIP LOCKED only',
    broken({ wakeupFixedClaim: skipLockedOnly }),
    { observed: /claimed by their first delivery: 0 of 5/ },
  );
  suite.breaks(
    'duplicate-wake-up-one-claim',
    'the claim waits on the row but does not re-check the conditions after the wait',
    broken({ wakeupFixedClaim: waitsWithoutRecheck }),
    {
      observed: /2 × claimed, now running with attempts 2/,
    },
  );
  suite.breaks(
    'duplicate-wake-up-one-claim',
    'the "fixed" claim is really SKIP LOCKED only',
    broken({ wakeupFixedClaim: skipLockedOnly }),
    { observed: /2 × not-claimable, now queued/ },
  );
  suite.breaks(
    'lost-wake-up-fixed-one-update',
    'the one-update claim is really SKIP LOCKED only',
    broken({ wakeupOneUpdateClaim: skipLockedOnly }),
    { observed: /claimed by their first delivery: 0 of 5/ },
  );
  suite.breaks(
    'duplicate-wake-up-one-claim-one-update',
    "the one update claims by id alone: it waits for the row but does not repeat the claim's conditions",
    broken({ wakeupOneUpdateClaim: updatesByIdAlone }),
    // Both UPDATEs land; the first claimer's read then finds the second's token, so it counts as not claimed.
    { observed: /1 × claimed, 1 × not-claimable, now running with attempts 2/ },
  );
  suite.coversEveryCheck();
});
