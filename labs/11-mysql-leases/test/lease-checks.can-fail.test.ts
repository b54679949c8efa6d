// Every lease check of lesson 11 must be able to fail: each case swaps in one broken part
// of the data layer (test/fixtures/broken-leases.ts), runs the check's experiment against
// a fresh database, and expects the check to fail.
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { afterAll, beforeAll, describe } from 'vitest';
import { freshDatabase, type FreshDatabase } from '../src/scratch-databases.ts';
import { buildLeaseChecks, type LeaseCheckDeps } from '../scripts/lease-checks.ts';
import type { LeaseParts } from '../scripts/lease-scenarios.ts';
import {
  claimIgnoringNextAttempt,
  claimReadingLiveProducts,
  claimTakingExpiredLeases,
  claimWithoutConditions,
  claimWithoutCounting,
  finishLeavingRunning,
  finishWithoutLeaseCheck,
  finishWithoutTokenCheck,
  requeueResettingAttempts,
} from './fixtures/broken-leases.ts';

let db: FreshDatabase | undefined;
beforeAll(async () => {
  db = await freshDatabase('leasecanfail');
}, 60_000);
afterAll(() => db?.drop());

const broken = (leaseParts: Partial<LeaseParts>) => (): LeaseCheckDeps => ({ leaseParts, database: db!.name });

describe('lease checks can fail', () => {
  const suite = canFailSuite(buildLeaseChecks);
  suite.breaks(
    'lease-script-first-claim',
    'the claim does not count the attempt',
    broken({ claim: claimWithoutCounting }),
    { observed: /attempts 0/ },
  );
  suite.breaks(
    'lease-script-second-claim-refused',
    'the claim has no conditions (check, then act)',
    broken({ claim: claimWithoutConditions }),
    { observed: /second claim got token/ },
  );
  suite.breaks(
    'lease-script-expired-not-claimable',
    'the claim takes running jobs whose lease passed',
    broken({ claim: claimTakingExpiredLeases }),
    { observed: /took the running job directly/ },
  );
  suite.breaks(
    'lease-script-old-token-refused',
    'finish checks the token but not the lease',
    broken({ finish: finishWithoutLeaseCheck }),
    { observed: /PUBLISHED/ },
  );
  suite.breaks(
    'lease-script-requeue-new-token',
    'the requeue resets attempts',
    broken({ requeueExpiredLease: requeueResettingAttempts }),
    { observed: /attempts 1/ },
  );
  suite.breaks(
    'lease-script-old-token-still-refused',
    'finish checks a live lease but not the token',
    broken({ finish: finishWithoutTokenCheck }),
    { observed: /PUBLISHED/ },
  );
  suite.breaks(
    'lease-script-new-token-publishes',
    'finish records the result but leaves the job running',
    broken({ finish: finishLeavingRunning }),
    { observed: /row is running/ },
  );
  suite.breaks(
    'twenty-claimers-one-token',
    'the claim has no conditions (check, then act)',
    broken({ claim: claimWithoutConditions }),
    { observed: /([2-9]|1\d|20) of 20 claimers got a token/ },
  );
  suite.breaks(
    'two-hundred-jobs-eight-claimers',
    'the claim has no conditions (check, then act)',
    broken({ claim: claimWithoutConditions }),
    { observed: /[1-9]\d* more than once/, timeoutMs: 180_000 },
  );
  suite.breaks(
    'zombie-changes-nothing',
    'finish checks a live lease but not the token',
    broken({ finish: finishWithoutTokenCheck }),
    { observed: /PUBLISHED/ },
  );
  suite.breaks(
    'early-duplicates-claim-nothing',
    'the claim ignores next_attempt_at',
    broken({ claim: claimIgnoringNextAttempt }),
    { observed: /[1-9] of \d+ deliveries/ },
  );
  suite.breaks(
    'snapshot-frozen',
    'the claim hands over the live products instead of the snapshot',
    broken({ claim: claimReadingLiveProducts }),
    { observed: /claim exports "Snapshot lamp \(renamed\)"/ },
  );
  suite.coversEveryCheck();
});
