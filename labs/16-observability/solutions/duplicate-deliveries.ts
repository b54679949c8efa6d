// Try it yourself (lesson 16), the reference answer. See exercise/duplicate-deliveries.ts for the task.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { DeliveryLogRecord, DuplicateVerdict, FinalJobRow } from '../exercise/duplicate-deliveries.ts';

export type { DeliveryLogRecord, DuplicateVerdict, FinalJobRow };

const distinct = (values: readonly (string | null | undefined)[]): string[] => [
  ...new Set(values.filter((v): v is string => typeof v === 'string' && v !== '')),
];

/** The file result_ref names equals the snapshot by VALUE; no reference, no file or no JSON is not equal. */
async function resultEqualsSnapshot(job: FinalJobRow, artifactsDir: string): Promise<boolean> {
  if (!job.result_ref) return false;
  try {
    const published: unknown = JSON.parse(await readFile(join(artifactsDir, job.result_ref), 'utf8'));
    return isDeepStrictEqual(published, job.snapshot);
  } catch {
    return false;
  }
}

export async function judgeDuplicates(
  records: readonly DeliveryLogRecord[],
  jobId: string,
  job: FinalJobRow,
  artifactsDir: string,
): Promise<DuplicateVerdict> {
  // Only this job's lines: the job id is what ties the whole path together.
  const mine = records.filter((r) => r.job_id === jobId);
  const deliveries = mine.filter((r) => r.phase === 'received');
  const claims = mine.filter((r) => r.phase === 'claimed');
  const published = mine.filter((r) => r.phase === 'published');
  const messageIds = distinct(deliveries.map((r) => r.message_id));
  const leaseTokens = distinct(claims.map((r) => r.lease_token));
  // The finish is a compare-and-set on the token: the one publication must carry the LAST
  // claim's token (an older holder's finish is refused and logs no 'published').
  const lastClaim = claims.at(-1);
  const publishedBy = published.length === 1 ? (published[0]?.lease_token ?? null) : null;
  // The logs say who published; only the file says WHAT was published.
  const resultMatchesSnapshot = await resultEqualsSnapshot(job, artifactsDir);
  const harmless =
    published.length === 1 && lastClaim !== undefined && publishedBy === lastClaim.lease_token && resultMatchesSnapshot;
  return {
    deliveries: deliveries.length,
    messageIds,
    leaseTokens,
    publications: published.length,
    publishedBy,
    resultMatchesSnapshot,
    harmless,
  };
}
