// Every fault check must fail when a real part is broken: a submission that writes no
// outbox event (lesson 11's), a publisher whose sends wait for ever in an offline queue, a
// publisher that marks a failed send sent anyway, a publisher process that confirms before
// it sends or sends with a fresh BullMQ id, a worker whose claim has no conditions. Each
// case runs the check's real scenario on a fresh database of this file's own.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe } from 'vitest';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { submitSnapshot } from '@tasks-lab/11-mysql-leases';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { readShortOutboxOptions } from '../src/options.ts';
import type { submitWithEvent } from '../src/outbox.ts';
import { buildFaultChecks, type FaultCheckDeps } from '../scripts/fault-checks.ts';
import type { FaultParts } from '../scripts/fault-scenarios.ts';
import { claimWithoutConditions } from './fixtures/claim-without-conditions.ts';
import { publisherMarkingFailedSendsSent, unboundedPublisher } from './fixtures/broken-publishers.ts';

const BROKEN_PUBLISHER = fileURLToPath(new URL('./fixtures/broken-publisher-process.ts', import.meta.url));

let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase('drillfail');
}, 60_000);
afterAll(() => db?.drop());

const broken = (parts: Partial<FaultParts>, timings?: FaultCheckDeps['timings']) => (): FaultCheckDeps => ({
  database: db.name,
  faultParts: parts,
  timings,
});

/**
 * A publisher that never reports is caught only by waiting out twice its bound (one poll +
 * the send bound + 1 s), then the retry delay. Shorter ones cut that wait from 6.5 s to 2.5 s;
 * the unbounded publisher ignores the send bound anyway, so it fails the same way: no report.
 */
const shortBound = () => readShortOutboxOptions(process.env, { pollMs: 100, sendTimeoutMs: 100, retryDelayMs: 100 });

/** Lesson 11's submission: the job alone, no outbox event. */
const submitWithoutEvent: typeof submitWithEvent = async (pool, productIds, options = {}) => ({
  ...(await submitSnapshot(pool, productIds, {
    idempotencyKey: options.idempotencyKey,
    deadlineMs: options.deadlineMs,
  })),
  eventId: '',
});

describe('fault checks can fail', () => {
  const suite = canFailSuite(buildFaultChecks);
  const slow = { timeoutMs: 120_000 };

  suite.breaks(
    'broker-down-job-and-event-kept',
    'the submission writes the job without its outbox event (lesson 11)',
    broken({ submit: submitWithoutEvent }),
    {
      ...slow,
      observed: /0 event\(s\)/,
    },
  );
  suite.breaks(
    'broker-down-send-error-reported',
    "the publisher's queue keeps an offline queue and its sends have no bound",
    broken({ startPublisher: unboundedPublisher }, shortBound()),
    {
      ...slow,
      observed: /no report/,
    },
  );
  suite.breaks(
    'broker-back-event-sent',
    'the publisher marks a failed send sent anyway',
    broken({ startPublisher: publisherMarkingFailedSendsSent() }),
    {
      ...slow,
      observed: /NOT kept unsent/,
    },
  );
  suite.breaks(
    'lost-confirmation-event-resent',
    'the publisher marks the event sent before it sends it',
    broken({ publisherProcess: { script: BROKEN_PUBLISHER, args: ['confirm-before-send'] } }),
    {
      ...slow,
      observed: /ALREADY MARKED SENT/,
    },
  );
  suite.breaks(
    'resend-absorbed-by-broker',
    'the publisher sends with a fresh BullMQ job id instead of the event id',
    broken({ publisherProcess: { script: BROKEN_PUBLISHER, args: ['fresh-job-id'] } }),
    {
      ...slow,
      observed: /saw 2 delivery/,
    },
  );
  suite.breaks(
    'duplicate-delivery-one-result',
    "the worker's claim is a plain UPDATE by id, with no conditions",
    broken({ workerClaim: claimWithoutConditions }),
    {
      ...slow,
      observed: /CHANGED|attempts 1 -> 2/,
    },
  );
  suite.coversEveryCheck();
});
