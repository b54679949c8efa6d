// Every interrupt check must fail when a real part is broken: a worker whose claim takes a running
// row with an expired lease, a scanner without the retry backoff, a worker that never asks
// canContinue, a cancel that does not tell a repeat from a first request. Each case runs the
// check's real scenario (a fresh database, a BullMQ prefix of its own, real worker processes).
import { describe } from 'vitest';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { buildInterruptChecks, type InterruptCheckDeps } from '../scripts/interrupt-checks.ts';
import type { InterruptParts } from '../scripts/interrupt-scenarios.ts';
import {
  cancelForgettingRepeats,
  scannerWithoutBackoff,
  workerClaimingExpiredLeases,
  workerWithoutCanContinue,
} from './fixtures/broken-interrupt.ts';

const broken = (parts: Partial<InterruptParts>) => (): InterruptCheckDeps => ({ interruptParts: parts });

describe('interrupt checks can fail', () => {
  const suite = canFailSuite(buildInterruptChecks);
  const slow = { timeoutMs: 90_000 };

  suite.breaks(
    'lease-recovered-after-sigkill',
    "the worker's claim takes a running row whose lease expired, without the scanner",
    broken({ bulkWorker: workerClaimingExpiredLeases }),
    {
      ...slow,
      observed: /claimed true.*EXPECTED no claim/,
    },
  );
  suite.breaks(
    'lease-recovered-after-sigkill',
    'the scanner requeues an expired lease with no backoff',
    broken({ startScanner: scannerWithoutBackoff }),
    {
      ...slow,
      observed: /NOT honoured/,
    },
  );
  suite.breaks(
    'cancelled-never-publishes',
    'the worker never asks canContinue between chunks',
    broken({ bulkWorker: workerWithoutCanContinue }),
    {
      ...slow,
      observed: /did NOT stop.*artifacts left/,
    },
  );
  suite.breaks(
    'cancelled-never-publishes',
    'a repeat cancel answers cancel-requested again',
    broken({ requestCancel: cancelForgettingRepeats }),
    {
      ...slow,
      observed: /repeat 202 cancel-requested \(EXPECTED/,
    },
  );
  suite.coversEveryCheck();
});
