// What `pnpm submit` says when the row is not terminal after its wait. It used to ask "is
// `pnpm worker` running?" whatever the row showed, also when a worker held the job's lease
// (step 6's zombie). Now the line says what the row shows: a holder (its attempt, its token,
// until when, or since when its lease has passed), or a job nobody claimed, and only then asks
// about the worker. The rows are real, in a database of this file's own; times move by the
// named UPDATEs, never by waiting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from '../src/scratch-databases.ts';
import { EXPIRE_LEASE } from '../src/job-queries.ts';
import { claim, readJob, requeueExpiredLease, submitSnapshot, type JobRow } from '../src/leases.ts';
import { ASK_FOR_WORKER, describeUnfinished } from '../src/submit-cli.ts';

let db: FreshDatabase | undefined;
beforeAll(async () => {
  db = await freshDatabase('unfinished');
}, 60_000);
afterAll(() => db?.drop());

const LONG_LEASE = { leaseMs: 30_000, maxAttempts: 3 };
const pool = () => db!.pool;
const rowOf = async (jobId: string): Promise<JobRow> => {
  const row = await readJob(pool(), jobId);
  if (!row) throw new Error(`job ${jobId} has no row`);
  return row;
};

describe("pnpm submit's line for a job that is not finished", () => {
  it('When nobody claimed the job, Then the line says so (queued, attempts 0) and asks whether the worker runs [test:submit-unclaimed-asks-for-worker]', async () => {
    const { jobId } = await submitSnapshot(pool(), [1]);
    const line = describeUnfinished(await rowOf(jobId), { waitSeconds: 15 });
    expect(line).toBe(
      `still queued after 15 s and never claimed (attempts 0): ${ASK_FOR_WORKER} (a lost wake-up: \`pnpm submit -- --wake ${jobId}\`)`,
    );
  });

  it("When a later lesson asks its own question (lesson 12's publisher and worker), Then the line asks it and offers no lesson 11 wake-up command", async () => {
    const { jobId } = await submitSnapshot(pool(), [1]);
    const ask = 'are `pnpm publisher` and `pnpm worker` running?';
    const line = describeUnfinished(await rowOf(jobId), { waitSeconds: 15, askWhenUnclaimed: ask });
    expect(line).toBe(`still queued after 15 s and never claimed (attempts 0): ${ask}`);
  });

  it('When a worker holds a live lease, Then the line names the attempt, the lease token and until when, and does not ask whether the worker runs [test:submit-held-lease-named]', async () => {
    const { jobId } = await submitSnapshot(pool(), [1]);
    const claimed = await claim(pool(), jobId, LONG_LEASE);
    const row = await rowOf(jobId);
    const line = describeUnfinished(row, { waitSeconds: 15 });
    expect(line).toContain(
      `still running after 15 s: attempt 1 (token ${claimed!.token}) holds the lease until ${row.leaseUntil!.toISOString()}`,
    );
    expect(line).toMatch(/\(\d+(\.\d+)? s from now\), so a worker has it/);
    expect(line).not.toContain(ASK_FOR_WORKER);
  });

  it('When the holder let its lease pass without a finish (the zombie), Then the line says since when it passed and that nothing requeues it yet, not whether the worker runs [test:submit-passed-lease-named]', async () => {
    const { jobId } = await submitSnapshot(pool(), [1]);
    const claimed = await claim(pool(), jobId, LONG_LEASE);
    await pool().query(EXPIRE_LEASE, [jobId]);
    const row = await rowOf(jobId);
    const line = describeUnfinished(row, { waitSeconds: 5 });
    expect(line).toContain(
      `still running after 5 s: the lease of attempt 1 (token ${claimed!.token}) ended at ${row.leaseUntil!.toISOString()} (`,
    );
    expect(line).toContain('ago) with no finish; nothing requeues it in this lesson');
    expect(line).not.toContain(ASK_FOR_WORKER);
  });

  it('When a requeued job waits for its backoff, Then the line says when the next claim may start', async () => {
    const { jobId } = await submitSnapshot(pool(), [1]);
    await claim(pool(), jobId, LONG_LEASE);
    await pool().query(EXPIRE_LEASE, [jobId]);
    expect(await requeueExpiredLease(pool(), jobId, { backoffMs: 60_000 })).toBe(true);
    const row = await rowOf(jobId);
    const line = describeUnfinished(row, { waitSeconds: 15 });
    expect(line).toContain(
      `still queued after 15 s: attempt 1 ended; the next claim may start at ${row.nextAttemptAt.toISOString()}`,
    );
    expect(line).not.toContain(ASK_FOR_WORKER);
    // Once the backoff is over and still nobody claims it, the worker is the question again.
    const later = new Date(row.nextAttemptAt.getTime() + 1000);
    expect(describeUnfinished(row, { waitSeconds: 15, now: later })).toContain(
      `nobody claimed it again since ${row.nextAttemptAt.toISOString()}: ${ASK_FOR_WORKER}`,
    );
  });
});
