// `pnpm submit`: the course's "submit, then check the outbox" script. It writes the job and
// its outbox event in ONE transaction, prints both rows (the event still unsent), nudges the
// publisher, then reads the job's ROW until it is finished. It never talks to BullMQ: the
// publisher is the only sender.
//   pnpm submit                          the product with the smallest id
//   pnpm submit -- --products 2,1        these products, in this order
//   pnpm submit -- --key order-42        with an Idempotency-Key: run it twice, get one job
//   pnpm submit -- --no-wait             print the rows and stop (step 3: the event waits, unsent)
//   LAB_FAULTS=after-job-insert:throw pnpm submit   fail between the job's and the event's INSERT
// Start `pnpm publisher` and `pnpm worker` first (or after: the event waits in the outbox).
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { RowDataPacket } from 'mysql2/promise';
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { idempotent, onShutdown, runMain, SECOND, errorMessage, formatDuration } from '@tasks-lab/lab-kit';
import { SUBMIT_OPTIONS } from '@tasks-lab/08-broker-worker';
import { isTerminal } from '@tasks-lab/01-state-machine';
import {
  describeUnfinished,
  parseProductList,
  smallestProductId,
  toExportResponse,
  waitForTerminalRow,
} from '@tasks-lab/11-mysql-leases';
import { openJobsDatabase } from './database.ts';
import { LAB, SERVER_PROCESS_OPTIONS, readOutboxOptions } from './options.ts';
import { submitWithEvent } from './outbox.ts';
import { openNudgeClient, publishNudge } from './nudge.ts';

/**
 * The job and its events, read together (Parameters: [job id]). One row per event; the
 * course's step 3 expects one, unsent.
 */
const JOB_WITH_EVENTS =
  'SELECT j.id, j.status, o.id AS event_id, o.sent_at FROM export_jobs j JOIN export_outbox o ON o.job_id = j.id WHERE j.id = ? ORDER BY o.created_at, o.id';

async function main(): Promise<number> {
  // `pnpm submit -- --x` passes the `--` through; drop it.
  const args = process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--'));
  const { values: flags } = parseArgs({
    args,
    options: { products: { type: 'string' }, key: { type: 'string' }, 'no-wait': { type: 'boolean' } },
  });
  const { database, queueName } = SERVER_PROCESS_OPTIONS.read();
  const { waitSeconds } = SUBMIT_OPTIONS.read();
  const timings = readOutboxOptions();
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  // Safe from every process at start-up: a named lock serialises it, applied files are skipped.
  await migrateLab(LAB, { database });
  const pool = await openJobsDatabase({ database });
  const redis = openNudgeClient();
  const close = idempotent(async () => {
    redis.disconnect();
    await pool.end();
  });
  onShutdown(close, { graceMs: 5 * SECOND });
  try {
    const productIds = flags.products ? parseProductList(flags.products) : [await smallestProductId(pool)];
    // The id is chosen before the transaction, so a failed submission can still be looked up
    // (the course's exercise: after a failure between the two INSERTs, neither table has it).
    const jobId = randomUUID();
    let submitted: Awaited<ReturnType<typeof submitWithEvent>>;
    try {
      submitted = await submitWithEvent(pool, productIds, {
        idempotencyKey: flags.key,
        deadlineMs: timings.deadlineMs,
        queueName,
        jobId,
      });
    } catch (err) {
      console.log(`the submission of job ${jobId} failed: ${errorMessage(err)}`);
      return 1;
    }
    console.log(
      `${submitted.created ? 'submitted' : 'found the job of this Idempotency-Key'} ${submitted.jobId} (deadline ${formatDuration(timings.deadlineMs)})`,
    );
    const [rows] = await pool.query<RowDataPacket[]>(JOB_WITH_EVENTS, [submitted.jobId]);
    for (const row of rows)
      console.log(JSON.stringify({ job_id: row.id, status: row.status, event_id: row.event_id, sent_at: row.sent_at }));
    if (flags['no-wait']) {
      console.log(`ready for the publisher: ${submitted.jobId}`);
      return 0;
    }
    // After the commit: a hint for an idle publisher. If it is lost, the publisher's poll finds the event.
    await publishNudge(redis).catch((err: unknown) =>
      console.log(`the nudge failed (${errorMessage(err)}); the publisher's polling will send the event`),
    );
    const row = await waitForTerminalRow(pool, submitted.jobId, waitSeconds * SECOND);
    if (!row) throw new Error(`job ${submitted.jobId} has no row`);
    console.log(JSON.stringify(toExportResponse(row), null, 2));
    if (!isTerminal(row.status))
      console.log(
        describeUnfinished(row, { waitSeconds, askWhenUnclaimed: 'are `pnpm publisher` and `pnpm worker` running?' }),
      );
    return row.status === 'succeeded' ? 0 : 1;
  } finally {
    await close();
  }
}

runMain(import.meta.url, main);
