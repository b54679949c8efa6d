// Where a drill may break lesson 10's worker on purpose. A drill starts the worker with
// LAB_FAULTS set (lab-kit's faultRule builds a rule); job payloads stay business-only.
//
//   source-connect       before the product source answers   delay-<ms>: a slow source
//   source-read          the read of the product source      throw: the source is down (a TEMPORARY failure)
//   after-deduct-commit  after the deduction committed       throw: the reply is lost, the job runs again
//
//   LAB_FAULTS=source-read:throw:2 pnpm worker        the first two reads of this process fail
//
// Counts are per process: restart the worker to start counting again.
import { faultPoints, type FaultPoints } from '@tasks-lab/lab-kit';

export const RETRY_FAULT_POINTS = ['source-connect', 'source-read', 'after-deduct-commit'] as const;

export type RetryFaultPoint = (typeof RETRY_FAULT_POINTS)[number];
export type RetryFaults = FaultPoints<RetryFaultPoint>;

/** Reads LAB_FAULTS once; a rule naming another point is refused at start-up. */
export const retryFaults = (env: NodeJS.ProcessEnv = process.env): RetryFaults => faultPoints(RETRY_FAULT_POINTS, env);
