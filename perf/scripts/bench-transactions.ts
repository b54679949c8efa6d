// The database bound of the durable pipeline: one export is five short transactions, and each is
// measured ALONE here, on a scratch database, `jobs` times at CONCURRENCY clients:
//
//   admit     lab 16's admitTraced: snapshot, job, event, trace, the gate's counter, COMMIT
//   claim     lab 12's claimEvents: lock up to a batch (the publisher's 10) of unsent events, COMMIT
//   confirm   lab 15's confirmAndRecordDispatch: lock the job, mark the event sent, record the dispatch
//             (the course's, one transaction per event); half the claimed batches are confirmed
//             so, the other half a batch at a time with lab 15's default confirmRoundAndRecordDispatch
//             (one multi-table UPDATE per round of 10), reported beside the bound, not in it
//   take      lab 15's claimOrWait: the worker's claim of the job (a lease and a token), the
//             course's statements (BEGIN, SKIP LOCKED read, UPDATE, read, COMMIT); half the jobs
//             are taken this way, the other half with lab 15's default claimInOneUpdate (the
//             UPDATE alone, then the read), reported beside the bound and not in it: the bound
//             stays the course's five transactions, a fixed yardstick
//   finish    lab 13's finishAndLeave: the CAS on the token, result_ref, out of the gate, the
//             course's shape (BEGIN, FINISH, LEAVE_GATE, COMMIT); half the jobs are finished
//             so, the other half with lab 13's default finishAndLeaveInOneStatement (one
//             multi-table UPDATE), reported beside the bound like the one-update take
//
// With rᵢ the rate of transaction i (per export), one export costs Σ 1/rᵢ seconds of database
// time if nothing overlapped; the bound is 1 / Σ(1/rᵢ) exports/s. A pipeline that reaches a good
// share of it spends its time in the database's own work; far below it, the time goes elsewhere
// (Node, Redis, the file, waiting). The writes of the file and the BullMQ hops are left out on
// purpose: this is the database's part alone.
import { performance } from 'node:perf_hooks';
import { runMain } from '@tasks-lab/lab-kit';
import { ensureInfra } from '@tasks-lab/infra';
import { claimEvents, type ClaimedEvent } from '@tasks-lab/12-outbox';
import { finishAndLeave, finishAndLeaveInOneStatement } from '@tasks-lab/13-admission';
import {
  claimInOneUpdate,
  claimOrWait,
  confirmAndRecordDispatch,
  confirmRoundAndRecordDispatch,
  type ClaimFn,
} from '@tasks-lab/15-recovery';
import { admitTraced, COURSE_TIMINGS, freshDatabase } from '@tasks-lab/16-observability';

export const TRANSACTIONS = ['admit', 'claim', 'confirm', 'take', 'finish'] as const;
export type TransactionName = (typeof TRANSACTIONS)[number];

export interface TransactionRates {
  jobs: number;
  concurrency: number;
  /** Exports per second each transaction alone allows (claim: events per second, 10 per transaction). */
  perSecond: Record<TransactionName, number>;
  /** 1 / Σ(1/rᵢ): exports per second if the database did nothing else. */
  boundPerSecond: number;
  /** Takes per second with lab 15's default claimInOneUpdate, on the other half of the jobs (not in the bound). */
  takeOneUpdatePerSecond: number;
  /** Finishes per second with lab 13's default finishAndLeaveInOneStatement, on the other half (not in the bound). */
  finishOneStatementPerSecond: number;
  /** Events confirmed per second by lab 15's default confirmRoundAndRecordDispatch, a claimed batch at a time, on the other half (not in the bound). */
  confirmRoundPerSecond: number;
}

const CONCURRENCY = 4;
const PRODUCTS = [1, 2, 3];

/** 1 / Σ(1/rᵢ). Pure. */
export function databaseBound(rates: readonly number[]): number {
  const cost = rates.reduce((sum, r) => sum + 1 / r, 0);
  return cost > 0 ? 1 / cost : Number.NaN;
}

/** Runs `work` once per item, `concurrency` at a time; returns items per second. */
async function timed<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
  return (items.length * 1000) / (performance.now() - started);
}

export async function measureTransactions(jobs = 1500): Promise<TransactionRates> {
  const db = await freshDatabase('benchtx', { connectionLimit: CONCURRENCY * 2 });
  try {
    const { pool } = db;
    const rules = { admissionLimit: 1_000_000 };
    const ids = Array.from({ length: jobs }, (_, i) => i);
    const jobIds: string[] = [];
    const admit = await timed(ids, CONCURRENCY, async () =>
      jobIds.push((await admitTraced(pool, PRODUCTS, { rules, deadlineMs: COURSE_TIMINGS.deadlineMs })).jobId),
    );

    const events: ClaimedEvent[] = [];
    const batches = Array.from({ length: Math.ceil(jobs / 10) }, (_, i) => i);
    const claimBatches = await timed(batches, CONCURRENCY, async () =>
      events.push(...(await claimEvents(pool, { batch: 10, claimMs: COURSE_TIMINGS.claimMs }))),
    );
    const claim = claimBatches * (events.length / batches.length);

    // One claim's events share its token: a round. Half the rounds each way.
    const byToken = new Map<string, ClaimedEvent[]>();
    for (const event of events) byToken.set(event.token, [...(byToken.get(event.token) ?? []), event]);
    const rounds = [...byToken.values()];
    const roundHalf = Math.ceil(rounds.length / 2);
    const eventsPerRound = (list: ClaimedEvent[][]) => list.reduce((sum, round) => sum + round.length, 0);
    const confirm = await timed(rounds.slice(0, roundHalf).flat(), CONCURRENCY, (event) =>
      confirmAndRecordDispatch(pool, event.eventId, event.token, event.jobId),
    );
    const roundsPerSecond = await timed(rounds.slice(roundHalf), CONCURRENCY, (round) =>
      confirmRoundAndRecordDispatch(pool, round),
    );
    const confirmRoundPerSecond =
      roundsPerSecond * (eventsPerRound(rounds.slice(roundHalf)) / Math.max(1, rounds.length - roundHalf));

    const tokens = new Map<string, string>();
    const takeWith = (claimFn: ClaimFn) => async (jobId: string) => {
      const attempt = await claimFn(pool, jobId, {
        leaseMs: COURSE_TIMINGS.leaseMs,
        maxAttempts: COURSE_TIMINGS.maxAttempts,
      });
      if (attempt.outcome === 'claimed') tokens.set(jobId, attempt.job.token);
    };
    const half = Math.ceil(jobIds.length / 2);
    const take = await timed(jobIds.slice(0, half), CONCURRENCY, takeWith(claimOrWait));
    const takeOneUpdatePerSecond = await timed(jobIds.slice(half), CONCURRENCY, takeWith(claimInOneUpdate));

    const finishWith = (finishFn: typeof finishAndLeave) => (jobId: string) =>
      finishFn(pool, jobId, tokens.get(jobId) ?? '', `${jobId}.json`);
    const finish = await timed(jobIds.slice(0, half), CONCURRENCY, finishWith(finishAndLeave));
    const finishOneStatementPerSecond = await timed(
      jobIds.slice(half),
      CONCURRENCY,
      finishWith(finishAndLeaveInOneStatement),
    );
    const perSecond = { admit, claim, confirm, take, finish };
    return {
      jobs,
      concurrency: CONCURRENCY,
      perSecond,
      boundPerSecond: databaseBound(Object.values(perSecond)),
      takeOneUpdatePerSecond,
      finishOneStatementPerSecond,
      confirmRoundPerSecond,
    };
  } finally {
    await db.drop();
  }
}

async function main(): Promise<void> {
  await ensureInfra({ services: ['mysql'], log: (line) => console.log(`[infra] ${line}`) });
  const rates = await measureTransactions();
  for (const name of TRANSACTIONS) console.log(`${name.padEnd(8)} ${Math.round(rates.perSecond[name])} /s`);
  const finishRatio = rates.finishOneStatementPerSecond / rates.perSecond.finish;
  console.log(
    `finish with finishAndLeaveInOneStatement (lab 13's default, not in the bound): ${Math.round(rates.finishOneStatementPerSecond)} /s, ${finishRatio.toFixed(2)}x finishAndLeave`,
  );
  const confirmRatio = rates.confirmRoundPerSecond / rates.perSecond.confirm;
  console.log(
    `confirm with confirmRoundAndRecordDispatch, a round of 10 per statement (lab 15's default, not in the bound): ${Math.round(rates.confirmRoundPerSecond)} /s, ${confirmRatio.toFixed(2)}x confirmAndRecordDispatch`,
  );
  const ratio = rates.takeOneUpdatePerSecond / rates.perSecond.take;
  console.log(
    `take with claimInOneUpdate (lab 15's default, not in the bound): ${Math.round(rates.takeOneUpdatePerSecond)} /s, ${ratio.toFixed(2)}x claimOrWait`,
  );
  console.log(
    `database bound: ${Math.round(rates.boundPerSecond)} exports/s (1 / Σ 1/rᵢ, ${rates.concurrency} clients)`,
  );
}

runMain(import.meta.url, main);
