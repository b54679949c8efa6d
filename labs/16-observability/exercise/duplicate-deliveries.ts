// Try it yourself (lesson 16): the course's case "published, but sent_at was never written back".
// The publisher sent a wake-up, failed before confirming it, and sent it again: the worker may
// see the same job more than once. From the phase logs alone, decide whether the duplicates
// changed the result.
//
// Three ids tell the story apart:
//   job_id       the business job: every line of its path carries it
//   message_id   the delivery (the BullMQ job id = the outbox event id): tells one message from another
//   lease_token  the claim: tells one execution from another; only the CURRENT token can finish
//
// The duplicates were harmless when exactly one line says 'published', and it carries the token
// of the LAST claim (a late finish with an older token is refused and logs nothing published).
// Check your answer: pnpm lab 16 --exercise   (hint: pnpm lab 16 --hint)

/** One phase log line, as src/phase-log.ts writes it (only the fields this exercise reads). */
export interface DeliveryLogRecord {
  job_id: string;
  phase: string;
  message_id?: string | null;
  lease_token?: string | null;
  attempt?: number | null;
}

export interface DuplicateVerdict {
  /** Lines with phase 'received' for this job: how many deliveries reached a worker. */
  deliveries: number;
  /** The distinct message ids of those deliveries, in first-seen order. */
  messageIds: string[];
  /** The distinct lease tokens of the 'claimed' lines, in first-seen order. */
  leaseTokens: string[];
  /** Lines with phase 'published' for this job. */
  publications: number;
  /** The token of the one publication (null when there is not exactly one). */
  publishedBy: string | null;
  /** Exactly one publication, by the last claim's token. */
  harmless: boolean;
}

export function judgeDuplicates(records: readonly DeliveryLogRecord[], jobId: string): DuplicateVerdict {
  // TODO: keep only this job's lines (other jobs share the log).
  // TODO: count the 'received' lines and collect their distinct message ids;
  //       collect the distinct tokens of the 'claimed' lines.
  // TODO: harmless = exactly one 'published' line, carrying the token of the LAST 'claimed' line.
  void records;
  void jobId;
  return { deliveries: 0, messageIds: [], leaseTokens: [], publications: 0, publishedBy: null, harmless: true };
}
