// Every recovery check of lesson 15 must be able to fail: each case swaps in one broken part
// (test/fixtures/broken-recovery.ts), runs the check's experiment for real (a fresh database,
// real claims, leases that really expire, the scanner's batch), and expects the check to fail,
// saying what went wrong.
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { describe } from 'vitest';
import { buildRecoveryChecks, type RecoveryCheckDeps } from '../scripts/recovery-checks.ts';
import type { RecoveryParts } from '../scripts/recovery-scenarios.ts';
import {
  claimIgnoringRetryGate,
  deadLetterAtEveryExpiry,
  eventEveryScan,
  everythingToBulk,
  forgetsDeadLetter,
  forgetsGate,
  neverRedispatches,
  noAttemptLimit,
  replayAnyJob,
  replayDropsDeletedProducts,
  replayOverwritesFailed,
  replayReadsProductsAgain,
  replayPassesNoGate,
  replayToBulk,
  replayWithoutLink,
  requeueWithoutBackoff,
} from './fixtures/broken-recovery.ts';

const broken = (parts: Partial<RecoveryParts>) => (): RecoveryCheckDeps => ({ recoveryParts: parts });

describe('recovery checks can fail', () => {
  const suite = canFailSuite(buildRecoveryChecks);
  // The retry gate.
  suite.breaks(
    'retry-gate-holds-duplicates',
    'the claim ignores next_attempt_at (the delay lives on the message only)',
    broken({ claim: claimIgnoringRetryGate }),
    {
      observed: /claims claimed \(attempts 1\)/,
    },
  );
  suite.breaks(
    'retry-gate-holds-duplicates',
    'the scanner requeues an expired lease without the backoff',
    broken({ recoverBatch: requeueWithoutBackoff }),
    {
      observed: /backoff \d+\.\d\d s\): claimed \(attempts 2\)/,
    },
  );
  // The queued recovery.
  suite.breaks(
    'queued-recovery-one-pending-event',
    'the unclaimed pass does not look for an unsent event',
    broken({ recoverBatch: eventEveryScan }),
    {
      observed: /2 after a third past the threshold/,
    },
  );
  suite.breaks(
    'queued-recovery-one-pending-event',
    'the scanner looks at running jobs only',
    broken({ recoverBatch: neverRedispatches }),
    { observed: /0 after the first scan \(untouched\)/ },
  );
  // Three expiries.
  suite.breaks(
    'three-expiries-dead-letter',
    'the failed job gets no dead letter',
    broken({ recoverBatch: forgetsDeadLetter }),
    { observed: /its dead letter: none/ },
  );
  suite.breaks(
    'three-expiries-dead-letter',
    'a dead letter is written at every expiry, not only the last',
    broken({ recoverBatch: deadLetterAtEveryExpiry }),
    { observed: /#1: .*dead letters 1/ },
  );
  suite.breaks(
    'three-expiries-dead-letter',
    'the failure does not leave the admission gate',
    broken({ recoverBatch: forgetsGate }),
    { observed: /#3: .*failed \(attempts_exhausted\).*gate 1; .*gate 1 before/ },
  );
  suite.breaks(
    'three-expiries-dead-letter',
    'the scanner has no attempt limit',
    broken({ recoverBatch: noAttemptLimit }),
    { observed: /#3: .*requeued/ },
  );
  // Replay.
  suite.breaks(
    'replay-new-linked-job',
    'the replay resets the failed job instead of creating a new one',
    broken({ replayJob: replayOverwritesFailed }),
    { observed: /the failed job after: queued/ },
  );
  suite.breaks('replay-new-linked-job', 'the new job has no replay_of', broken({ replayJob: replayWithoutLink }), {
    observed: /replay_of none/,
  });
  suite.breaks(
    'replay-new-linked-job',
    "the replay goes to exports.bulk whatever the failed job's route",
    broken({ replayJob: replayToBulk }),
    { observed: /events on exports\.bulk/ },
  );
  suite.breaks(
    'replay-new-linked-job',
    'a job that did not fail is replayed too',
    broken({ replayJob: replayAnyJob }),
    { observed: /a queued job replayed: 202/ },
  );
  suite.breaks(
    'replay-new-linked-job',
    'the replay passes no admission gate',
    broken({ replayJob: replayPassesNoGate }),
    { observed: /gate 0 -> 0/ },
  );
  // The replay's snapshot.
  suite.breaks(
    'replay-keeps-snapshot',
    "the replay reads the failed job's products again (the lab's first replay)",
    broken({ replayJob: replayReadsProductsAgain }),
    {
      observed: /product 1 repriced: .*product 1 at 4499, NOT equal.*product 3 deleted: .*no replay: missing-products/,
    },
  );
  suite.breaks(
    'replay-keeps-snapshot',
    'the replay leaves out the products deleted since',
    broken({ replayJob: replayDropsDeletedProducts }),
    {
      observed: /product 3 deleted: .*products 5, product 3 at gone, NOT equal/,
    },
  );
  // The route.
  suite.breaks(
    'recovered-job-keeps-route',
    "the course's recovery: every new event on exports.bulk",
    broken({ recoverBatch: everythingToBulk }),
    { observed: /fast, lease expired: route exports\.fast.*events on exports\.fast, exports\.bulk/ },
  );
  suite.coversEveryCheck();
});
