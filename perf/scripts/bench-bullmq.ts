// The ceiling of a Redis queue on this machine: raw BullMQ, no database, no files. A producer
// adds no-op jobs (in batches of 50, `addBulk`) while one Worker in the same process runs them at
// concurrency 1, 4 or 16; the rate is jobs completed per second from the first add to the last
// completion. On the lab's own Redis, under a scratch prefix obliterated afterwards.
//
// The durable pipeline does much more per export (five short transactions, a file, two BullMQ
// hops counting the publisher's), so it cannot come near this figure; the ratio says how much
// each durable export costs in "queue jobs".
//
//   pnpm bench:bullmq                  concurrency 1, 4, 16; 3 runs of 3000 jobs each
import { randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { ensureInfra } from '@tasks-lab/infra';
import { brokerConnection, queueConnection } from '@tasks-lab/08-broker-worker';
import { median, runMain } from '@tasks-lab/lab-kit';

export interface RawBullmqRun {
  concurrency: number;
  jobs: number;
  ms: number;
  jobsPerSecond: number;
}

export const RAW_CONCURRENCY = [1, 4, 16] as const;
const BATCH = 50;

/** A no-op job carries nothing and returns nothing: the run measures BullMQ alone. */
type NoopData = Record<string, never>;

/** One run: `jobs` no-op jobs added and processed at `concurrency`, on a prefix of its own. */
export async function runRawBullmqOnce(concurrency: number, jobs: number): Promise<RawBullmqRun> {
  const prefix = `tasks-lab16-rawbench-${randomBytes(4).toString('hex')}`;
  const connection = queueConnection(brokerConnection({ maxRetriesPerRequest: null }));
  const queue = new Queue<NoopData, void, 'noop'>('noop', { connection, prefix });
  let completed = 0;
  let done!: () => void;
  const allDone = new Promise<void>((resolve) => (done = resolve));
  const worker = new Worker<NoopData, void, 'noop'>('noop', async () => undefined, {
    connection,
    prefix,
    concurrency,
    autorun: false,
  });
  worker.on('completed', () => {
    completed += 1;
    if (completed === jobs) done();
  });
  try {
    await worker.waitUntilReady();
    const started = performance.now();
    void worker.run();
    for (let added = 0; added < jobs; added += BATCH) {
      const count = Math.min(BATCH, jobs - added);
      await queue.addBulk(
        Array.from({ length: count }, () => ({ name: 'noop', data: {}, opts: { removeOnComplete: true } })),
      );
    }
    await allDone;
    const ms = performance.now() - started;
    return { concurrency, jobs, ms, jobsPerSecond: (jobs * 1000) / ms };
  } finally {
    await worker.close();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  }
}

export async function runRawBullmq(
  options: { runs?: number; jobs?: number; log?: (line: string) => void } = {},
): Promise<RawBullmqRun[]> {
  const runs = options.runs ?? 3;
  const jobs = options.jobs ?? 3000;
  const log = options.log ?? console.log;
  const all: RawBullmqRun[] = [];
  for (let run = 1; run <= runs; run += 1) {
    // Concurrencies take turns run by run, so a machine that slows down slows all alike.
    for (const concurrency of RAW_CONCURRENCY) {
      const result = await runRawBullmqOnce(concurrency, jobs);
      all.push(result);
      log(
        `[raw BullMQ run ${run}/${runs}] concurrency ${concurrency}: ${Math.round(result.jobsPerSecond)} jobs/s (${jobs} jobs in ${Math.round(result.ms)} ms)`,
      );
    }
  }
  return all;
}

export function rawMedians(all: readonly RawBullmqRun[]): Array<{ concurrency: number; jobsPerSecond: number }> {
  return RAW_CONCURRENCY.map((concurrency) => ({
    concurrency,
    jobsPerSecond: median(all.filter((r) => r.concurrency === concurrency).map((r) => r.jobsPerSecond)),
  }));
}

async function main(): Promise<void> {
  await ensureInfra({ services: ['redis'], log: (line) => console.log(`[infra] ${line}`) });
  const all = await runRawBullmq();
  for (const row of rawMedians(all))
    console.log(`median at concurrency ${row.concurrency}: ${Math.round(row.jobsPerSecond)} jobs/s`);
}

runMain(import.meta.url, main);
