// The wait check must fail when either deadline bound is taken out: a claim that ignores the
// deadline, or a scanner that never ends a queued job past it. Each case runs the check's real
// scenario (a fresh database, the lab's parts but the one broken) and expects it to fail.
import { describe } from 'vitest';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { buildWaitChecks, type WaitCheckDeps, type WaitParts } from '../scripts/wait-checks.ts';
import { claimIgnoringDeadline, scannerIgnoringDeadline } from './fixtures/broken-waits.ts';

const broken = (parts: Partial<WaitParts>) => (): WaitCheckDeps => ({ waitParts: parts });

describe('wait checks can fail', () => {
  const suite = canFailSuite(buildWaitChecks);

  suite.breaks(
    'wait-bounded-by-deadline',
    "the claim ignores the job's deadline",
    broken({ claim: claimIgnoringDeadline }),
    {
      observed: /next attempt due: claim claimed \(attempts 1\) \(EXPECTED nothing/,
    },
  );
  suite.breaks(
    'wait-bounded-by-deadline',
    'the scanner never ends a queued job past its deadline',
    broken({ recoverBatch: scannerIgnoringDeadline }),
    {
      observed: /then the scan: untouched.*EXPECTED failed \(deadline_exceeded\)/,
    },
  );
  suite.coversEveryCheck();
});
