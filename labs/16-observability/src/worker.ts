// `pnpm worker:fast` and `pnpm worker:bulk`: lesson 15's workers, unchanged in what they do, on
// lab 16's database and BullMQ prefix, watched through lesson 15's delivery hooks:
//
//   src/delivery-phases.ts  the phase lines (received, claimed, published, not-claimed, busy,
//                           stopped, failed), each with its span, and the `before-claim` point
//   src/latency.ts          each claim won records the job's first claim (submit -> first claim
//                           is a latency target, and only the workers see claims)
//
//   pnpm worker:fast
//   LAB_FAULTS=before-claim:throw:once pnpm worker:fast     the first delivery fails before its claim
//   LOG_LEVEL=warn pnpm worker:bulk                         warnings and errors only (no per-job line)
import { runMain } from '@tasks-lab/lab-kit';
import {
  claimOfForm,
  runRecoveryWorker,
  startRecoveryWorker,
  type ChunkedParts,
  type DeliveryHooks,
  type RunningRecoveryWorker,
  type StartRecoveryWorkerOptions,
} from '@tasks-lab/15-recovery';
import { asRecoveryFaults, type ObservedFaults, observedFaults, observedHooks } from './delivery-phases.ts';
import { recordingFirstClaim } from './latency.ts';
import { describeTimings, LAB, readObservabilityOptions, WORKER_PROCESS_OPTIONS } from './options.ts';
import { createPhaseLogger, type PhaseLogger } from './phase-log.ts';

export type StartObservedWorkerOptions = Omit<StartRecoveryWorkerOptions, 'faults' | 'hooks'> & {
  logger: PhaseLogger;
  /** @defaultValue observedFaults() (LAB_FAULTS) */
  faults?: ObservedFaults;
  /** Only the can-fail fixtures: a broken variant of the hooks. */
  adjustHooks?: (hooks: DeliveryHooks, logger: PhaseLogger) => DeliveryHooks;
};

/** Lesson 15's startRecoveryWorker, with the phase-log hooks and the `before-claim` point. */
export async function startObservedWorker(options: StartObservedWorkerOptions): Promise<RunningRecoveryWorker> {
  const { logger, faults = observedFaults(), adjustHooks, ...rest } = options;
  const hooks = observedHooks({ logger, faults });
  const parts = { claimOrWait: recordingFirstClaim(claimOfForm(rest.timings.claimForm)), ...rest.parts };
  return startRecoveryWorker({
    ...rest,
    parts,
    faults: asRecoveryFaults(faults),
    hooks: adjustHooks ? adjustHooks(hooks, logger) : hooks,
  });
}

/** A broken variant of the process (the can-fail fixtures); the lab runs with none. */
export interface ObservedWorkerVariant {
  note?: string;
  parts?: Partial<ChunkedParts>;
  adjustHooks?: (hooks: DeliveryHooks, logger: PhaseLogger) => DeliveryHooks;
  adjustLogger?: (logger: PhaseLogger) => PhaseLogger;
}

/** The process: lesson 15's (options, migrations, lines, ready line, SIGTERM) on lab 16's settings, with the hooks. */
export async function runObservedWorker(variant: ObservedWorkerVariant = {}): Promise<void> {
  const settings = WORKER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  const timings = readObservabilityOptions();
  const faults = observedFaults();
  const created = createPhaseLogger({ component: 'worker', level: timings.logLevel });
  const logger = variant.adjustLogger ? variant.adjustLogger(created) : created;
  const hooks = observedHooks({ logger, faults });
  await runRecoveryWorker({
    lab: LAB,
    settings,
    timings,
    faults: asRecoveryFaults(faults),
    describe: () => describeTimings(timings),
    hooks: variant.adjustHooks ? variant.adjustHooks(hooks, logger) : hooks,
    parts: { claimOrWait: recordingFirstClaim(claimOfForm(timings.claimForm)), ...variant.parts },
    note: variant.note,
    logEachJob: logger.plain,
  });
}

runMain(import.meta.url, () => runObservedWorker());
