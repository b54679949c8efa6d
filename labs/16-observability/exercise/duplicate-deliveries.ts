// Try it yourself (lesson 16): the course's case "published, but sent_at was never written back".
// The publisher sent a wake-up, failed before confirming it, and sent it again: the worker may
// see the same job more than once. From the phase logs and the job's final row, decide whether
// the duplicates changed the result.
//
// Three ids tell the story apart:
//   job_id       the business job: every line of its path carries it
//   message_id   the delivery (the BullMQ job id = the outbox event id): tells one message from another
//   lease_token  the claim: tells one execution from another; only the CURRENT token can finish
//
// The duplicates were harmless when exactly one line says 'published', it carries the token of
// the LAST claim (a late finish with an older token is refused and logs nothing published), and
// the job's result_ref names a file in the artifacts folder whose products EQUAL the job's
// snapshot: compare the parsed JSON values, not the text (a file with other spacing or key order
// holds the same products; a changed price does not). A missing or unreadable file is not equal.
// Check your answer: pnpm -w lab 16 --exercise   (hint: pnpm -w lab 16 --hint)

/** One phase log line, as src/phase-log.ts writes it (only the fields this exercise reads). */
export interface DeliveryLogRecord {
  job_id: string;
  phase: string;
  message_id?: string | null;
  lease_token?: string | null;
  attempt?: number | null;
}

/** The job's row at the end (export_jobs): what it says was published, and what it froze. */
export interface FinalJobRow {
  /** The published artifact's file name inside the artifacts folder; null when nothing was published. */
  result_ref: string | null;
  /** The products frozen at submit, as the row holds them. */
  snapshot: readonly unknown[];
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
  /** result_ref names a file of `artifactsDir` whose JSON value equals the snapshot. */
  resultMatchesSnapshot: boolean;
  /** Exactly one publication, by the last claim's token, and its file equals the snapshot. */
  harmless: boolean;
}

export async function judgeDuplicates(
  records: readonly DeliveryLogRecord[],
  jobId: string,
  job: FinalJobRow,
  artifactsDir: string,
): Promise<DuplicateVerdict> {
  // TODO: keep only this job's lines (other jobs share the log).
  // TODO: count the 'received' lines and collect their distinct message ids;
  //       collect the distinct tokens of the 'claimed' lines.
  // TODO: read the file job.result_ref names in artifactsDir (node:fs/promises readFile, node:path
  //       join), parse it, and compare its value with job.snapshot (node:util isDeepStrictEqual).
  // TODO: harmless = exactly one 'published' line, carrying the token of the LAST 'claimed' line,
  //       and the file equals the snapshot.
  void records;
  void jobId;
  void job;
  void artifactsDir;
  return {
    deliveries: 0,
    messageIds: [],
    leaseTokens: [],
    publications: 0,
    publishedBy: null,
    resultMatchesSnapshot: true,
    harmless: true,
  };
}
