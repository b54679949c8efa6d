// Try it yourself (lesson 16), the reference answer. See exercise/duplicate-deliveries.ts for the task.
import type { DeliveryLogRecord, DuplicateVerdict } from '../exercise/duplicate-deliveries.ts';

export type { DeliveryLogRecord, DuplicateVerdict };

const distinct = (values: readonly (string | null | undefined)[]): string[] => [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))];

export function judgeDuplicates(records: readonly DeliveryLogRecord[], jobId: string): DuplicateVerdict {
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
  const harmless = published.length === 1 && lastClaim !== undefined && publishedBy === lastClaim.lease_token;
  return { deliveries: deliveries.length, messageIds, leaseTokens, publications: published.length, publishedBy, harmless };
}
