// Every scheduler check must fail when a real part is broken: a tick that sends its export to
// exports.fast, a schedule registered on exports.bulk, a tick that backfills one slot per
// missed interval, a fast worker that registers a schedule of its own on every start, and a
// `pnpm schedule` that registers a new id on each run. Each case runs the check's real
// scenario (a fresh database and a BullMQ prefix of its own, real worker processes).
import { describe } from 'vitest';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { buildSchedulerChecks, type SchedulerCheckDeps } from '../scripts/scheduler-checks.ts';
import { schedulerTimings, type SchedulerParts } from '../scripts/scheduler-scenarios.ts';
import {
  backfillingFastWorker,
  fastWorkerExportingOnFast,
  fastWorkerRegisteringOnStart,
  scheduleOnBulk,
  scheduleWithNewIdEachRun,
} from './fixtures/broken-scheduler.ts';

const broken = (parts: Partial<SchedulerParts>) => (): SchedulerCheckDeps => ({ schedulerParts: parts });

/**
 * The downtime drill waits in intervals (two signals, then 3.5 intervals down): its can-fail
 * cases run the schedule every 300 ms instead of every second, to cut those waits. A broken
 * worker makes its extra slots for the downtime just the same (the judge reads the interval
 * from the evidence), so the check fails for the same reason, only sooner.
 */
const brokenOnShortInterval = (parts: Partial<SchedulerParts>) => (): SchedulerCheckDeps => ({
  schedulerParts: parts,
  schedulerTimings: { ...schedulerTimings(), scheduleEveryMs: 300 },
});

describe('scheduler checks can fail', () => {
  const suite = canFailSuite(buildSchedulerChecks);
  const slow = { timeoutMs: 90_000 };

  suite.breaks(
    'signal-on-fast-export-on-bulk',
    "the tick admits its export on exports.fast, the signal's own queue",
    broken({ fastWorker: fastWorkerExportingOnFast }),
    {
      ...slow,
      observed: /outbox event to exports\.fast \(EXPECTED exports\.bulk\), delivered by the fast worker/,
    },
  );
  suite.breaks(
    'signal-on-fast-export-on-bulk',
    '`pnpm schedule` registers the schedule on exports.bulk',
    broken({ schedule: scheduleOnBulk }),
    {
      ...slow,
      observed: /NO schedule-tick was handled on exports\.fast .*no processor registered for job name "schedule-tick"/,
    },
  );
  suite.breaks(
    'no-backfill-after-downtime',
    'a late signal schedules one slot per interval it missed (a backfill)',
    brokenOnShortInterval({ fastWorker: backfillingFastWorker }),
    {
      ...slow,
      observed: /slots for them: [2-9]\d* .*EXPECTED exactly 1: no backfill/,
    },
  );
  suite.breaks(
    'no-backfill-after-downtime',
    'the fast worker registers a schedule of its own, under a new id, on every start',
    brokenOnShortInterval({ fastWorker: fastWorkerRegisteringOnStart }),
    {
      ...slow,
      observed: /EXPECTED exactly 1: no backfill|NOT the cadence/,
    },
  );
  suite.breaks(
    'one-schedule-per-id',
    '`pnpm schedule` registers under a new id on each run',
    broken({ schedule: scheduleWithNewIdEachRun }),
    {
      ...slow,
      observed: /holds 2 scheduler\(s\).* and 2 pending signal\(s\)/,
    },
  );
  suite.coversEveryCheck();
});
