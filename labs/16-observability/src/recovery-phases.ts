// Lesson 16's view of a recovery batch: one phase line (JSON, stdout, src/phase-log.ts) per job the
// batch moved:
//
//   requeued       an expired lease, queued again after the backoff, with a new event
//   redispatched   dispatched, never claimed: a new event
//   dead-lettered  failed (attempts exhausted, deadline passed), with its one dead letter
//   cancelled      a cancel request, honoured once the lease was over
//
// Each line has the reason, the new event's id as message_id (the BullMQ id its wake-up will
// have), the job's attempts so far and the job's trace (a new span of it: the scanner's step).
// The trace and the attempts come from ONE plain read of the moved jobs after the batch's
// commits (no lock: the batch is over, and a line a moment late is still true of that batch).
import type { Pool, RowDataPacket } from 'mysql2/promise';
import type { RecoveredJob, RecoveryReport } from '@tasks-lab/15-recovery';
import type { Phase, PhaseLogger } from './phase-log.ts';
import { childSpan, parseTraceParent, traceFields } from './trace.ts';

/**
 * The moved jobs' traces and attempts. Rows returned: one per id found. Parameters: [jobIds].
 */
export const READ_RECOVERED_JOBS = `
  SELECT id, trace_parent, attempts
  FROM export_jobs
  WHERE id IN (?)`;

/** Which phase each of the report's lists is. */
const PHASES: ReadonlyArray<[keyof RecoveryReport, Phase]> = [
  ['requeued', 'requeued'],
  ['redispatched', 'redispatched'],
  ['failed', 'dead-lettered'],
  ['cancelled', 'cancelled'],
];

interface JobFacts {
  traceParent: string | undefined;
  attempts: number;
}

async function readFacts(pool: Pool, jobIds: string[], logger: PhaseLogger): Promise<Map<string, JobFacts>> {
  try {
    const [rows] = await pool.query<RowDataPacket[]>(READ_RECOVERED_JOBS, [jobIds]);
    return new Map(
      rows.map((row) => [
        String(row.id),
        {
          traceParent: row.trace_parent === null ? undefined : String(row.trace_parent),
          attempts: Number(row.attempts),
        },
      ]),
    );
  } catch (err) {
    // The lines still go out, without the trace: tracing never stops recovery.
    logger.pino.warn({ err }, `reading the traces of ${jobIds.length} recovered job(s) failed`);
    return new Map();
  }
}

/** One phase line per job the batch moved (requeued, redispatched, dead-lettered, cancelled). */
export async function logRecoveryReport(pool: Pool, report: RecoveryReport, logger: PhaseLogger): Promise<void> {
  const moved: Array<[RecoveredJob, Phase]> = PHASES.flatMap(([list, phase]) =>
    report[list].map((job): [RecoveredJob, Phase] => [job, phase]),
  );
  if (moved.length === 0) return;
  const facts = await readFacts(pool, [...new Set(moved.map(([job]) => job.jobId))], logger);
  for (const [job, phase] of moved) {
    const fact = facts.get(job.jobId);
    const parent = parseTraceParent(fact?.traceParent);
    logger.phase({
      job_id: job.jobId,
      phase,
      message_id: job.eventId ?? null,
      attempt: fact?.attempts ?? null,
      ...traceFields(parent && childSpan(parent)),
      parent_span_id: parent?.spanId,
      reason: job.reason,
      from: job.from,
      to: job.to,
      queue: job.queueName,
      next_attempt_at: job.nextAttemptAt?.toISOString(),
    });
  }
}
