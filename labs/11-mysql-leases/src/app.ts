// Lesson 11's HTTP API. Same conventions as lesson 01 (its requireJson, parseJsonBody,
// allowOnly, 404 and error middleware, its request schema), but the record is a row of
// export_jobs in MySQL:
//
//   POST /exports       freeze the snapshot and insert the job in ONE short transaction,
//                       wake a worker only after the commit, answer 202 + Location.
//                       An Idempotency-Key header makes a retry safe: the same key with the
//                       same request returns the same job; with another request, 409.
//   GET  /exports/:id   reads the row (404 only when there is no row). Nothing here asks
//                       Redis: a wake-up BullMQ forgot changes nothing a user sees.
// While the database does not answer, both answer 500 database-unavailable and log one line
// per request (databaseDownAs500); lesson 13 turns that into a 503 with Retry-After.
import express, { type Express, type Request, type RequestHandler } from 'express';
import type { Pool } from 'mysql2/promise';
import {
  AppError,
  JobNotFoundError,
  allowOnly,
  errorMiddleware,
  type ErrorTranslator,
  isTerminal,
  notFoundHandler,
  parseExportRequest,
  parseJobId,
  parseJsonBody,
  requireJson,
  type JobState,
} from '@tasks-lab/01-state-machine';
import { errorMessage } from '@tasks-lab/lab-kit';
import { databaseDownReason } from './mysql-pool.ts';
import { readJob, submitSnapshot, type JobRow } from './leases.ts';

/** The header a client sets to make POST /exports safe to retry. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** What the API answers for a job: lesson 01's fields plus what lesson 11 keeps in the row. */
export interface ExportResponse {
  id: string;
  status: JobState;
  /** Derived from status on every read, never stored. */
  terminal: boolean;
  /** The frozen snapshot's products, in the order the client asked for them. */
  product_ids: number[];
  /** How many times a worker claimed the job. */
  attempts: number;
  /** The published artifact (its name carries the lease token that wrote it); null until succeeded. */
  result_ref: string | null;
  result: { rows: number } | null;
  error: string | null;
  deadline_at: string;
  created_at: string;
  updated_at: string;
}

export function toExportResponse(row: JobRow): ExportResponse {
  return {
    id: row.id,
    status: row.status,
    terminal: isTerminal(row.status),
    product_ids: row.snapshot.map((product) => product.id),
    attempts: row.attempts,
    result_ref: row.resultRef,
    result: row.status === 'succeeded' ? { rows: row.resultRows ?? row.snapshot.length } : null,
    error: row.errorCode,
    deadline_at: row.deadlineAt.toISOString(),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * The Idempotency-Key header, or undefined when the client sent none. submitSnapshot
 * checks its form (InvalidIdempotencyKeyError, 400); a header sent twice arrives joined
 * with ", " and is refused there too.
 */
export function idempotencyKeyOf(req: Request): string | undefined {
  return req.get(IDEMPOTENCY_KEY_HEADER);
}

/**
 * Lesson 11's answer while the database does not answer (refused, dropped, timed out): a 500,
 * as before, but a known one. Lesson 01's error middleware logs an unexpected error with its
 * stack trace, which is right for a bug and wrong here: every request would print the same
 * trace for as long as the database is down. A known error is logged as ONE line that names
 * the cause (`500 database-unavailable GET /exports/...: ... (ECONNREFUSED) ...`).
 * Lesson 13 answers the same errors with a 503 and Retry-After instead (its translateError).
 */
export function databaseDownAs500(err: unknown): AppError | undefined {
  const reason = databaseDownReason(err);
  if (reason === undefined) return undefined;
  return new AppError(
    'database-unavailable',
    `The job database is not reachable (${reason}); the request may not have been applied: try again later (a submission with the same Idempotency-Key)`,
    500,
  );
}

export interface AppOptions {
  /** The process's one pool. */
  pool: Pool;
  /**
   * What happens after the commit: lesson 11 wakes a worker (queue.ts's wakeWorker on the
   * lab's queue); lesson 12 nudges its publisher instead. A failure here never loses the
   * job, which is committed: it is logged and the client still gets its 202.
   */
  wake: (jobId: string) => Promise<unknown>;
  /** What a failed `wake` means, for that log line. @defaultValue "no worker was woken (lesson 12's outbox closes this gap)" */
  wakeFailureMeans?: string;
  /**
   * How a submission is stored (one transaction). @defaultValue submitSnapshot (lesson 12
   * passes its submitWithEvent; lesson 13 its admission, which reads a header of `req`)
   */
  submit?: (
    pool: Pool,
    productIds: readonly number[],
    options: { idempotencyKey?: string; deadlineMs?: number },
    req: Request,
  ) => Promise<{ jobId: string; created: boolean }>;
  /** Routes a later lesson adds (lesson 13's GET /backlog), mounted before the 404 handler. */
  routes?: (app: Express) => void;
  /**
   * A step of POST /exports that runs after the content type is checked and before the body is
   * read: lesson 13's early refusal answers a full service here, before any parsing or
   * transaction. @defaultValue none
   */
  beforeBody?: RequestHandler;
  /** How long a new job has before its deadline. @defaultValue submitSnapshot's (the course's 10 minutes) */
  deadlineMs?: number;
  log?: (line: string) => void;
  /**
   * Errors a later lesson answers itself (lesson 13: a database that does not answer is a 503).
   * @defaultValue databaseDownAs500 (a 500 logged as one line)
   */
  translateError?: ErrorTranslator;
}

export function createApp(options: AppOptions): Express {
  const { pool, wake } = options;
  const submit = options.submit ?? submitSnapshot;
  const log = options.log ?? console.error;
  const app = express();
  app.disable('x-powered-by');
  const beforeBody = options.beforeBody ? [options.beforeBody] : [];

  app
    .route('/exports')
    .post(requireJson, ...beforeBody, parseJsonBody, async (req, res) => {
      const request = parseExportRequest(req.body);
      const idempotencyKey = idempotencyKeyOf(req);
      // Returns only after the COMMIT: the row exists before anyone hears about it.
      const submitted = await submit(
        pool,
        request.product_ids,
        { idempotencyKey, deadlineMs: options.deadlineMs },
        req,
      );
      // Wake a worker on every accepted request, a replay included: if the first wake-up
      // was lost, this one helps; if not, the second claim finds the lease taken.
      try {
        await wake(submitted.jobId);
      } catch (err) {
        // The job is committed and stays queued; only what follows the commit failed.
        const means = options.wakeFailureMeans ?? "no worker was woken (lesson 12's outbox closes this gap)";
        log(`job ${submitted.jobId} is saved, but ${means}: ${errorMessage(err).slice(0, 200)}`);
      }
      const row = await readJob(pool, submitted.jobId);
      if (!row) throw new JobNotFoundError(submitted.jobId);
      if (!submitted.created) res.set('Idempotent-Replayed', 'true');
      // 202 says "accepted", not "done": the client polls the Location, which reads the table.
      res.status(202).location(`/exports/${row.id}`).json(toExportResponse(row));
    })
    .all(allowOnly('POST'));

  app
    .route('/exports/:id')
    .get(async (req, res) => {
      // Lower case: one spelling per job (the column compares byte for byte).
      const jobId = parseJobId(req.params.id).toLowerCase();
      const row = await readJob(pool, jobId);
      if (!row) throw new JobNotFoundError(jobId);
      res.json(toExportResponse(row));
    })
    .all(allowOnly('GET'));

  options.routes?.(app);
  app.use(notFoundHandler);
  app.use(errorMiddleware(log, options.translateError ?? databaseDownAs500));
  return app;
}
