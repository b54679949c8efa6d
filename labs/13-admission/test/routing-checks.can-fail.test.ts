// Every routing check must fail when a real part is broken: a route that counts the ids
// before de-duplication (admitExport called directly: on the HTTP path lesson 01's parsing
// already drops repeats) or uses `<` for "at most", two workers on exports.fast and none on
// exports.bulk, one worker process for both queues, a publisher that sends everything to
// exports.bulk, a finish that never leaves the gate, a backlog that ignores running jobs or
// shows the newest job's age. Each case runs the check's real scenario (fresh databases of
// its own, real worker processes on lesson 13's queues).
import { describe } from 'vitest';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { buildRoutingChecks, type RoutingCheckDeps } from '../scripts/routing-checks.ts';
import type { RoutingParts } from '../scripts/routing-scenarios.ts';
import {
  admitRoutingBeforeDeduplication,
  admitRoutingBelowThirty,
  backlogIgnoringRunning,
  backlogWithNewestAge,
  oneWorkerForBothQueues,
  publisherSendingEverythingToBulk,
  twoFastWorkers,
  workersWithPlainFinish,
} from './fixtures/broken-routing.ts';

const broken = (parts: Partial<RoutingParts>) => (): RoutingCheckDeps => ({ routingParts: parts });

describe('routing checks can fail', () => {
  const suite = canFailSuite(buildRoutingChecks);
  const slow = { timeoutMs: 120_000 };

  suite.breaks(
    'route-by-row-count',
    'admitExport routes by the ids as sent, before de-duplication',
    broken({ admit: admitRoutingBeforeDeduplication }),
    {
      observed: /admitted directly -> exports\.bulk \(EXPECTED exports\.fast\)/,
    },
  );
  suite.breaks(
    'route-by-row-count',
    'the route uses `< 30` where the course says at most 30',
    broken({ admit: admitRoutingBelowThirty }),
    {
      observed: /30 distinct -> exports\.bulk \(EXPECTED exports\.fast\)/,
    },
  );
  suite.breaks(
    'each-queue-has-its-own-worker',
    'the second worker is started on exports.fast too (none consumes exports.bulk)',
    broken({ startWorkers: twoFastWorkers }),
    {
      ...slow,
      observed: /exports\.bulk 0\);.*bulk job \S+ delivered by NO worker/,
    },
  );
  suite.breaks(
    'each-queue-has-its-own-worker',
    'the publisher sends every event to exports.bulk, whatever its row says',
    broken({ publisher: publisherSendingEverythingToBulk }),
    {
      ...slow,
      observed: /fast job \S+ delivered by the bulk worker/,
    },
  );
  suite.breaks(
    'fast-completes-while-bulk-paused',
    'one worker process consumes both queues',
    broken({ startWorkers: oneWorkerForBothQueues }),
    {
      ...slow,
      observed: /the fast worker is stopped too.*NOT done within the bound/,
    },
  );
  suite.breaks(
    'backlog-count-and-oldest-age',
    "the workers' finish is lesson 11's: the job never leaves the gate's counter",
    broken({ startWorkers: workersWithPlainFinish }),
    {
      ...slow,
      observed: /gate counter 4 with 0 active \(the counter does NOT match\)/,
    },
  );
  suite.breaks(
    'backlog-count-and-oldest-age',
    'the backlog query ignores running jobs',
    broken({ readBacklog: backlogIgnoringRunning }),
    {
      ...slow,
      observed: /running 0;.*0 running/,
    },
  );
  suite.breaks(
    'backlog-count-and-oldest-age',
    "the backlog shows the newest job's age instead of the oldest's",
    broken({ readBacklog: backlogWithNewestAge }),
    {
      ...slow,
      observed: /WRONG AGE/,
    },
  );
  suite.coversEveryCheck();
});
