// Lesson 15's two new routes, mounted on lesson 14's API by src/app.ts:
//
//   POST /exports/:id/cancel   asks the job to stop (src/cancel.ts: the row's cancel_requested,
//                              under the row's lock). The answer is a request, not a result:
//                              202 {status: 'cancel-requested' | 'already-requested', job}
//                              The worker stops at its next chunk boundary (canContinue) and the
//                              recovery scanner moves the job to cancelled once its lease is over.
//                              409 job-terminal: succeeded, failed or cancelled; NOTHING changed
//                              404: no such job
//   POST /exports/:id/replay   a failed job runs again as a NEW job (src/replay.ts) with the
//                              failed job's snapshot, admitted through the gate like any
//                              submission, with the deadline a new job gets; the failed one is kept:
//                              202 + Location: /exports/<new id>, body: the new job and replay_of
//                              409 not-replayable: the job is not failed; 404: no such job
//                              An Idempotency-Key header makes a retried replay return the same job;
//                              a key that named another request (a POST /exports, a replay of
//                              another job) is refused, 409 idempotency-key-reused, both ways.
//
// The id is canonical before anything is read: lesson 01's parseJobId (400 for anything that
// is not a UUID), then lower case, as lesson 11's GET does (one spelling per job).
import type { Express } from 'express';
import { AppError, allowOnly, parseJobId } from '@tasks-lab/01-state-machine';
import {
  idempotencyKeyOf,
  readJob,
  toExportResponse,
  type ExportResponse,
  type JobRow,
} from '@tasks-lab/11-mysql-leases';
import type { AppOptions as ScheduleAppOptions } from '@tasks-lab/14-schedule-slots';
import { errorMessage } from '@tasks-lab/lab-kit';
import { JobNotFoundError } from '@tasks-lab/01-state-machine';
import { requestCancel, type CancelResult } from './cancel.ts';
import { replayJob, type ReplayResult } from './replay.ts';

/** Lesson 14's API options, plus how these routes decide (the can-fail fixtures swap these). */
export interface RecoveryRouteOptions extends ScheduleAppOptions {
  /** How a cancel is requested. @defaultValue requestCancel (the can-fail fixtures pass broken ones) */
  cancel?: typeof requestCancel;
  /** How a failed job is replayed. @defaultValue replayJob */
  replay?: typeof replayJob;
  /** Every cancel answer and every replay, after its COMMIT. @defaultValue one log line */
  onRecoveryRequest?: (line: string) => void;
}

/** What POST /exports/:id/cancel answers with 202. */
export interface CancelResponse {
  status: 'cancel-requested' | 'already-requested';
  job: ExportResponse;
}

/** What POST /exports/:id/replay answers with 202: the new job, naming the failed one. */
export interface ReplayResponse extends ExportResponse {
  replay_of: string;
}

/** The job is already over: a cancel would change nothing, and says so. */
export class JobTerminalError extends AppError {
  constructor(
    readonly jobId: string,
    readonly jobStatus: string,
  ) {
    super('job-terminal', `Job ${jobId} is already ${jobStatus}: there is nothing to cancel`, 409);
  }
}

/** Lesson 11's canonical id: a UUID (400 otherwise), in lower case. */
const canonicalId = (raw: string): string => parseJobId(raw).toLowerCase();

/** The row as it is after the decision (its COMMIT is done): what the answer shows. */
async function rowAfter(options: RecoveryRouteOptions, jobId: string): Promise<JobRow> {
  const row = await readJob(options.pool, jobId);
  if (!row) throw new JobNotFoundError(jobId);
  return row;
}

export function describeCancel(jobId: string, result: CancelResult): string {
  return `cancel of job ${jobId} (${result.status}): ${result.outcome}`;
}

export function describeReplay(result: ReplayResult): string {
  return `${result.created ? 'replayed' : 'replay already made for'} failed job ${result.replayOf}: job ${result.jobId} (event ${result.eventId})`;
}

/** Adds POST /exports/:id/cancel and POST /exports/:id/replay to an app (src/app.ts passes it to lesson 14's createApp). */
export function mountRecoveryRoutes(app: Express, options: RecoveryRouteOptions): void {
  const cancel = options.cancel ?? requestCancel;
  const replay = options.replay ?? replayJob;
  const log = options.log ?? console.error;
  const onRequest = options.onRecoveryRequest ?? ((line: string) => console.log(line));
  app
    .route('/exports/:id/cancel')
    .post(async (req, res) => {
      const jobId = canonicalId(String(req.params.id));
      // Returns after the COMMIT: a 202 means the flag is in the row.
      const result = await cancel(options.pool, jobId);
      onRequest(describeCancel(jobId, result));
      if (result.outcome === 'terminal') throw new JobTerminalError(jobId, result.status);
      const answer: CancelResponse = {
        status: result.outcome,
        job: toExportResponse(await rowAfter(options, jobId)),
      };
      res.status(202).json(answer);
    })
    .all(allowOnly('POST'));

  app
    .route('/exports/:id/replay')
    .post(async (req, res) => {
      const failedJobId = canonicalId(String(req.params.id));
      // The same deadline setting as POST /exports (the server's EXPORT_DEADLINE_MS), not the course's fixed 10 minutes.
      const result = await replay(options.pool, failedJobId, {
        rules: options.rules,
        idempotencyKey: idempotencyKeyOf(req),
        deadlineMs: options.deadlineMs,
      });
      onRequest(describeReplay(result));
      // The new job's event is committed: nudge the publisher (as POST /exports does).
      try {
        await options.nudge();
      } catch (err) {
        log(
          `replay ${result.jobId} is saved, but the nudge failed; the publisher's polling will send its event: ${errorMessage(err).slice(0, 200)}`,
        );
      }
      if (!result.created) res.set('Idempotent-Replayed', 'true');
      const answer: ReplayResponse = {
        ...toExportResponse(await rowAfter(options, result.jobId)),
        replay_of: result.replayOf,
      };
      res.status(202).location(`/exports/${result.jobId}`).json(answer);
    })
    .all(allowOnly('POST'));
}
