// Every admission check of lesson 13 must be able to fail: each case swaps in one broken
// admission (test/fixtures/broken-admission.ts) as the app's `admit`, runs the check's
// experiment for real (the API over HTTP, a scratch database of its own, as verify does),
// and expects the check to fail, saying what went wrong.
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { describe } from 'vitest';
import { buildAdmissionChecks, type AdmissionCheckDeps } from '../scripts/admission-checks.ts';
import type { AdmissionParts } from '../scripts/admission-scenarios.ts';
import {
  admissionsNotReported,
  admitsWhenGateBusy,
  capacityAs500,
  capacityWithoutRetryAfter,
  countGateWithoutCounter,
  gateAfterCommit,
  groupJudgedOnce,
  groupsNeverForm,
  locklessCountGate,
  locklessCounterGate,
  lockWaitAs500,
  neverRetries,
  quotaCountsEveryClient,
  quotaIgnored,
  quotaOnByDefault,
} from './fixtures/broken-admission.ts';
import {
  admitRefusingWithoutTheLock,
  refusesNothing,
  refusesWithoutRetryAfter,
} from './fixtures/broken-early-refusal.ts';

const broken = (admit: AdmissionParts['admit']) => (): AdmissionCheckDeps => ({ admissionParts: { admit } });
const brokenEarly = (refuseEarly: AdmissionParts['refuseEarly']) => (): AdmissionCheckDeps => ({
  admissionParts: { refuseEarly },
});
/** More than the limit of 5 answered 202 ("12 × 202"). */
const overLimit = /\b([6-9]|\d{2,}) × 202/;

describe('admission checks can fail', () => {
  const suite = canFailSuite(buildAdmissionChecks);
  // The burst, the course's gate.
  suite.breaks(
    'burst-admits-exactly-limit-count-gate',
    'the count gate counts without locking the gate row',
    broken(locklessCountGate),
    { observed: overLimit },
  );
  suite.breaks('burst-admits-exactly-limit-count-gate', 'a full service throws a plain Error', broken(capacityAs500), {
    observed: /45 × 500/,
  });
  suite.breaks(
    'burst-gate-reads-under-lock-count-gate',
    'the count gate counts without locking the gate row',
    broken(locklessCountGate),
    { observed: /not under the lock.*another session saw \d+ jobs/ },
  );
  suite.breaks(
    'burst-refusals-leave-nothing-count-gate',
    'the count gate never keeps the counter',
    broken(countGateWithoutCounter),
    { observed: /gate counter 0, counted active 5/ },
  );
  // The burst, the lab's gate.
  suite.breaks(
    'burst-admits-exactly-limit-counter-gate',
    'a full service answers 503 without Retry-After',
    broken(capacityWithoutRetryAfter),
    { observed: /Retry-After: 45 × none/ },
  );
  suite.breaks(
    'burst-admits-exactly-limit-counter-gate',
    'the counter is read without FOR UPDATE',
    broken(locklessCounterGate),
    { observed: overLimit },
  );
  suite.breaks(
    'burst-gate-reads-under-lock-counter-gate',
    'the counter is read without FOR UPDATE',
    broken(locklessCounterGate),
    { observed: /not under the lock/ },
  );
  suite.breaks(
    'burst-gate-reads-under-lock-counter-gate',
    "the gate's readings are not reported",
    broken(admissionsNotReported),
    { observed: /^0 admissions logged/ },
  );
  suite.breaks(
    'burst-refusals-leave-nothing-counter-gate',
    'the gate runs in its own transaction after the job committed',
    broken(gateAfterCommit),
    { observed: /50 jobs, 50 events/ },
  );
  // The burst, the lab's gate with group commit.
  suite.breaks(
    'burst-admits-exactly-limit-counter-gate-grouped',
    'a group asks once whether there is room, and lets all its members in',
    broken(groupJudgedOnce),
    { observed: overLimit },
  );
  suite.breaks(
    'burst-gate-reads-under-lock-counter-gate-grouped',
    'a group asks once whether there is room, and lets all its members in',
    broken(groupJudgedOnce),
    { observed: /at or over their limit/ },
  );
  suite.breaks(
    'burst-gate-reads-under-lock-counter-gate-grouped',
    'group commit never forms a group',
    broken(groupsNeverForm),
    { observed: /no admission shared a group.*in groups of 1\+1\+1\+1\+1/ },
  );
  suite.breaks(
    'burst-refusals-leave-nothing-counter-gate-grouped',
    'the gate runs in its own transaction after the job committed',
    broken(gateAfterCommit),
  );
  // The burst, the lab's gate behind the early refusal: the faster form keeps the same promise.
  suite.breaks(
    'burst-admits-exactly-limit-counter-gate-early-refusal',
    'the counter is read without FOR UPDATE',
    broken(locklessCounterGate),
    { observed: overLimit },
  );
  suite.breaks(
    'burst-gate-reads-under-lock-counter-gate-early-refusal',
    'the counter is read without FOR UPDATE',
    broken(locklessCounterGate),
    { observed: /not under the lock/ },
  );
  suite.breaks(
    'burst-refusals-leave-nothing-counter-gate-early-refusal',
    'the gate runs in its own transaction after the job committed',
    broken(gateAfterCommit),
  );
  // A full service with the gate held: refused early, or only under the lock.
  suite.breaks('full-service-refused-before-the-lock', 'the early refusal never refuses', brokenEarly(refusesNothing), {
    observed: /answered 503 admission-busy/,
  });
  suite.breaks(
    'full-service-refused-before-the-lock',
    'the early refusal answers without Retry-After',
    brokenEarly(refusesWithoutRetryAfter),
    { observed: /capacity-exceeded without Retry-After/ },
  );
  suite.breaks(
    'course-refusal-waits-for-the-lock',
    "the course's form refuses by an unlocked read inside the admission",
    broken(admitRefusingWithoutTheLock),
    { observed: /answered 503 capacity-exceeded/ },
  );
  // The per-client quota.
  suite.breaks('client-quota-answers-429', 'the quota is never applied', broken(quotaIgnored), {
    observed: /alice sent 5 at once: 5 × 202/,
  });
  suite.breaks('client-quota-answers-429', "the quota counts every client's jobs", broken(quotaCountsEveryClient), {
    observed: /then bob: 429/,
  });
  suite.breaks('client-quota-off-by-default', 'a quota of 2 applies when none is set', broken(quotaOnByDefault), {
    observed: /3 × 429/,
  });
  // The gate held by another session.
  suite.breaks(
    'lock-wait-retried-then-admitted',
    'a lock-wait timeout is not retried and escapes',
    broken(lockWaitAs500),
    { observed: /answered 500/ },
  );
  suite.breaks('lock-wait-retried-then-admitted', 'the admission never retries', broken(neverRetries), {
    observed: /answered 503 admission-busy/,
  });
  suite.breaks(
    'lock-wait-exhausted-503-nothing-created',
    'a lock-wait timeout is not retried and escapes',
    broken(lockWaitAs500),
    { observed: /answered 500/ },
  );
  suite.breaks(
    'lock-wait-exhausted-503-nothing-created',
    'a busy gate admits the job anyway',
    broken(admitsWhenGateBusy),
    { observed: /answered 202.*jobs 0 -> 1, events 0 -> 1/ },
  );
  suite.coversEveryCheck();
});
