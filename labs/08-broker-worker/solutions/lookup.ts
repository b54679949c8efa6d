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
    return { state: 'unknown', jobId };
  }
  if (state === 'completed') {
    return { state: 'completed', jobId, result: job.returnvalue };
  }
  if (state === 'failed') return { state: 'failed', jobId, reason: job.failedReason };
  return { state: 'pending', jobId, detail: state };
}
