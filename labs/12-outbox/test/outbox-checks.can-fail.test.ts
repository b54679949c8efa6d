// Every outbox check of lesson 12 must be able to fail: each case swaps in one broken
// part (test/fixtures/broken-outbox.ts), runs the check's experiment against the lab's
// Redis and a scratch database of its own (as verify does), and expects the check to fail.
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { describe } from 'vitest';
import { buildOutboxChecks, type OutboxCheckDeps } from '../scripts/outbox-checks.ts';
import type { OutboxParts } from '../scripts/outbox-scenarios.ts';
import {
  claimWaitingForLocks,
  nudgeWrongChannel,
  sendWithFreshId,
  submitInTwoTransactions,
  submitWithoutEvent,
} from './fixtures/broken-outbox.ts';

const broken =
  (outboxParts: Partial<OutboxParts>, more: Omit<OutboxCheckDeps, 'outboxParts'> = {}) =>
  (): OutboxCheckDeps => ({ outboxParts, ...more });

/**
 * A nudge nobody hears leaves the event to the idle publisher's poll, 10 s in the check. With
 * a 3 s poll it still fails for the same reason (woken by 0 nudges, sent a whole poll after
 * the commit, far over a tenth of the poll), in a third of the time.
 */
const shortNudgePoll = { nudgePollMs: 3000 };

describe('outbox checks can fail', () => {
  const suite = canFailSuite(buildOutboxChecks);
  suite.breaks(
    'submit-writes-job-and-event',
    "the submit is lesson 11's (no event written)",
    broken({ submitWithEvent: submitWithoutEvent }),
    { observed: /0 event row/ },
  );
  suite.breaks(
    'fault-after-job-insert-leaves-neither',
    'the job and the event commit in two transactions',
    broken({ submitWithEvent: submitInTwoTransactions }),
    { observed: /1 job rows, 0 event rows/ },
  );
  suite.breaks(
    'publisher-sends-and-confirms',
    'the publisher sends with a fresh BullMQ id instead of the event id',
    broken({ sendWakeUp: sendWithFreshId }),
    { observed: /no BullMQ job has the event id/, timeoutMs: 90_000 },
  );
  suite.breaks(
    'nudge-wakes-idle-publisher',
    'the submit side nudges a channel nobody listens on',
    broken({ publishNudge: nudgeWrongChannel }, shortNudgePoll),
    { observed: /0 nudge/, timeoutMs: 90_000 },
  );
  suite.breaks(
    'two-publishers-share-the-work',
    'the claim has no SKIP LOCKED',
    broken({ claimEvents: claimWaitingForLocks }),
    { observed: /B did not get the next event/, timeoutMs: 240_000 },
  );
  suite.coversEveryCheck();
});
