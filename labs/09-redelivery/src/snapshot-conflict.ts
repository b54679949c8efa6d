// What the try-it-yourself guard (exercise/snapshot-guard.ts) reports: a second delivery
// of a job_id whose snapshot differs from the one the file already holds.
import { CodedError } from '@tasks-lab/lab-kit';

export class SnapshotConflictError extends CodedError {
  constructor(
    readonly jobId: string,
    readonly existingSha256: string,
    readonly incomingSha256: string,
  ) {
    super(
      'snapshot-conflict',
      `job ${jobId} already has an artifact with sha256 ${existingSha256.slice(0, 12)}; this delivery carries a different snapshot (${incomingSha256.slice(0, 12)}) and is refused`,
    );
  }
}

export interface GuardedOutcome {
  path: string;
  sha256: string;
  /** true when the file was already there with these exact bytes and was left alone. */
  reused: boolean;
}
