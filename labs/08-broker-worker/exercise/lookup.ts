// Try it yourself (lesson 08): after the wait ran out, look the export up again by
// the SAME business id. Three answers must stay apart: still pending, finished
// (with the worker's result or its failure), and unknown to Redis: never submitted,
// or removed after its hour. "Unknown" is not "waiting" (Celery's PENDING blurs the two).
import type { JobState } from 'bullmq';
import type { ArtifactResult } from '../src/artifacts.ts';
import type { ExportsQueue } from '../src/producer.ts';

export type ExportLookup =
  | { state: 'unknown'; jobId: string }
  | { state: 'pending'; jobId: string; detail: JobState }
  | { state: 'completed'; jobId: string; result: ArtifactResult }
  | { state: 'failed'; jobId: string; reason: string };

export async function lookupExport(queue: ExportsQueue, jobId: string): Promise<ExportLookup> {
  // State first, then the job's fields: read the other way round, a job that finishes
  // between the two reads looks "completed" but carries no result yet.
  const state = await queue.getJobState(jobId);
  const job = state === 'unknown' ? undefined : await queue.getJob(jobId);
  if (state === 'unknown' || !job) {
    // TODO: Redis has no job under this id (never submitted, or removed after its hour).
    //       Say "unknown" instead of failing; it must not look like "waiting" either.
    throw new Error(`no job ${jobId}`);
  }
  if (state === 'completed') {
    // TODO: return the worker's result. BullMQ keeps it in the job hash, next to the data.
    return { state: 'pending', jobId, detail: state };
  }
  if (state === 'failed') return { state: 'failed', jobId, reason: job.failedReason };
  return { state: 'pending', jobId, detail: state };
}
