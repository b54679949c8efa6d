// Every failure-matrix check must fail when the protection its row relies on is broken (or,
// for the two rows that only observe, when what is observed changes). Each case runs ONLY the
// broken row, for real (its own database, prefix and artifacts folder, real Redis and MariaDB),
// with one part swapped for a variant from test/fixtures/broken-matrix.ts, into an evidence
// folder of its own.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe } from 'vitest';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { buildMatrixChecks, type MatrixCheckDeps } from '../scripts/matrix-checks.ts';
import type { MatrixParts } from '../src/matrix/parts.ts';
import {
  admitCommittingJobFirst,
  admitWithoutLimit,
  appTrustingBullMQ,
  claimIgnoringBackoff,
  finishIgnoringToken,
  publisherConfirmingBeforeSend,
  publisherDroppingFailedSends,
  scannerForgettingAttempts,
  scannerIgnoringPendingEvents,
  scannerNeverRedispatching,
  scheduleSlotAfterCommit,
  tickNamingPlannedSlot,
  workerClaimingAnyState,
  workerIgnoringCancel,
  workerWritingWrongRows,
} from './fixtures/broken-matrix.ts';

const folders = mkdtemp(join(tmpdir(), 'tasks-lab16-matrix-canfail-'));
afterAll(async () => rm(await folders, { recursive: true, force: true }));

let cases = 0;
const broken = (parts: Partial<MatrixParts>) => async (): Promise<MatrixCheckDeps> => ({
  matrixParts: parts,
  matrixOutDir: join(await folders, `case-${(cases += 1)}`),
});

describe('failure matrix checks can fail', () => {
  const suite = canFailSuite(buildMatrixChecks);
  const slow = { timeoutMs: 90_000 };

  suite.breaks(
    'matrix-db-fails-before-commit',
    'the submit commits the job before it writes the event',
    broken({ admit: admitCommittingJobFirst }),
    { observed: /job rows 1 \(EXPECTED/ },
  );
  suite.breaks(
    'matrix-broker-down-at-submit',
    'the publisher marks an event sent when its send failed (no retry)',
    broken({ publisherParts: publisherDroppingFailedSends }),
    { ...slow, observed: /while down: .*EXPECTED/ },
  );
  suite.breaks(
    'matrix-sent-not-confirmed',
    'the publisher confirms an event before sending it',
    broken({ publisherParts: publisherConfirmingBeforeSend }),
    { ...slow, observed: /sends: outbox send_attempts 1.*EXPECTED/ },
  );
  suite.breaks(
    'matrix-sent-not-confirmed',
    "the worker's claim takes the job whatever its state (it trusts the delivery)",
    broken({ workerParts: workerClaimingAnyState }),
    { ...slow, observed: /second delivery: claimed \(token.*EXPECTED claimed nothing/ },
  );
  suite.breaks(
    'matrix-worker-killed-holding-lease',
    'the scanner resets the attempts of the jobs it requeues',
    broken({ recoverBatch: scannerForgettingAttempts }),
    { ...slow, observed: /attempts 1.*EXPECTED succeeded on attempts 2/ },
  );
  suite.breaks(
    'matrix-old-token-late',
    'the finish does not compare the lease token',
    broken({ finish: finishIgnoringToken }),
    { observed: /finish with A: true.*EXPECTED/ },
  );
  suite.breaks(
    'matrix-cancel',
    "the worker's canContinue ignores a cancel request",
    broken({ workerParts: workerIgnoringCancel }),
    { ...slow, observed: /file\(s\) left in the artifacts folder \(EXPECTED/ },
  );
  suite.breaks(
    'matrix-attempts-exhausted',
    'the scanner resets the attempts of the jobs it requeues',
    broken({ recoverBatch: scannerForgettingAttempts }),
    { ...slow, observed: /a 4th claim: claimed.*EXPECTED nothing/ },
  );
  suite.breaks(
    'matrix-result-cache-expired',
    'GET /exports/:id answers 404 when BullMQ no longer holds the wake-up',
    broken({ createApp: appTrustingBullMQ }),
    { observed: /GET \/exports\/:id 404.*EXPECTED/ },
  );
  suite.breaks('matrix-queue-full', 'the admission never refuses (no limit)', broken({ admit: admitWithoutLimit }), {
    observed: /5x 202 \(EXPECTED 2\)/,
  });
  suite.breaks(
    'matrix-same-slot-twice',
    'the slot is inserted after the job committed, its duplicate key caught',
    broken({ scheduleOnce: scheduleSlotAfterCommit }),
    { observed: /jobs 2, slot rows 1.*EXPECTED/ },
  );
  suite.breaks(
    'matrix-signal-crosses-minute',
    "the signal's slot is named by its planned time (what is observed changes)",
    broken({ handleTick: tickNamingPlannedSlot }),
    { observed: /1 slot rows, 1 jobs \(EXPECTED/ },
  );
  suite.breaks(
    'matrix-dispatched-never-claimed',
    'the scanner has no pass for unclaimed dispatches',
    broken({ recoverBatch: scannerNeverRedispatching }),
    { ...slow, observed: /redispatched it 0 time\(s\).*EXPECTED/ },
  );
  suite.breaks(
    'matrix-fails-before-claim',
    'the scanner has no pass for unclaimed dispatches',
    broken({ recoverBatch: scannerNeverRedispatching }),
    { ...slow, observed: /NOT recovered.*redispatched it 0 time\(s\)/ },
  );
  suite.breaks(
    'matrix-duplicate-during-backoff',
    'the claim ignores next_attempt_at',
    broken({ claim: claimIgnoringBackoff }),
    { observed: /claimed \(attempts 1.*EXPECTED nothing, twice/ },
  );
  suite.breaks(
    'matrix-pending-event-suppresses',
    'the scanner adds an event while one is still unsent',
    broken({ recoverBatch: scannerIgnoringPendingEvents }),
    { observed: /scan 1: redispatched.*EXPECTED untouched/ },
  );
  suite.breaks(
    'matrix-regression-clean-export',
    'the worker writes the rows in another order than the snapshot',
    broken({ workerParts: workerWritingWrongRows }),
    { observed: /mismatch.*EXPECTED artifact-verified/ },
  );
  suite.coversEveryCheck();
});
