// Lesson 13's backlog: how much waits, and for how long. Both matter: the count says how
// much is piled up, the oldest age says how long somebody has been waiting. Jobs left over
// from earlier runs count too, which is why the limit is checked against the table (or its
// counter), never against "how many did I submit".
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { ACTIVE_STATES, BACKLOG_BY_QUEUE, BACKLOG_BY_STATUS, UNPUBLISHED_BY_QUEUE } from './admission-queries.ts';
import { readGateCounter } from './gate.ts';

export interface StatusBacklog {
  status: string;
  jobs: number;
  oldestAgeSeconds: number;
}

export interface QueueBacklog extends StatusBacklog {
  queueName: string;
}

export interface UnpublishedBacklog {
  queueName: string;
  events: number;
  oldestAgeSeconds: number;
}

export interface Backlog {
  /** Queued and running jobs, per status (the course's first query). */
  byStatus: StatusBacklog[];
  /** Queued and running jobs, per queue (their route) and status. */
  byQueue: QueueBacklog[];
  /** Events not yet sent to the broker, per queue (the course's second query). */
  unpublished: UnpublishedBacklog[];
  /** The gate's counter: what the next admission will compare with the limit. */
  gateCounter: number;
}

const seconds = (microseconds: unknown) => Math.max(0, Number(microseconds) / 1_000_000);

export async function readBacklog(pool: Pool): Promise<Backlog> {
  const [[byStatus], [byQueue], [unpublished], gateCounter] = await Promise.all([
    pool.query<RowDataPacket[]>(BACKLOG_BY_STATUS, [ACTIVE_STATES]),
    pool.query<RowDataPacket[]>(BACKLOG_BY_QUEUE, [ACTIVE_STATES]),
    pool.query<RowDataPacket[]>(UNPUBLISHED_BY_QUEUE),
    readGateCounter(pool),
  ]);
  return {
    byStatus: byStatus.map((row) => ({
      status: String(row.status),
      jobs: Number(row.jobs),
      oldestAgeSeconds: seconds(row.oldest_age_us),
    })),
    byQueue: byQueue.map((row) => ({
      queueName: String(row.queue_name),
      status: String(row.status),
      jobs: Number(row.jobs),
      oldestAgeSeconds: seconds(row.oldest_age_us),
    })),
    unpublished: unpublished.map((row) => ({
      queueName: String(row.queue_name),
      events: Number(row.events),
      oldestAgeSeconds: seconds(row.oldest_age_us),
    })),
    gateCounter,
  };
}

/** The backlog as a few lines for people (`pnpm backlog`). */
export function formatBacklog(backlog: Backlog): string[] {
  const age = (s: number) => `${s.toFixed(1)} s`;
  const lines = [`gate counter: ${backlog.gateCounter} queued or running`];
  if (backlog.byStatus.length === 0) lines.push('no job is queued or running');
  for (const row of backlog.byStatus)
    lines.push(`${row.status}: ${row.jobs} job(s), oldest ${age(row.oldestAgeSeconds)}`);
  for (const row of backlog.byQueue)
    lines.push(`  ${row.queueName} ${row.status}: ${row.jobs}, oldest ${age(row.oldestAgeSeconds)}`);
  for (const row of backlog.unpublished)
    lines.push(`unsent events on ${row.queueName}: ${row.events}, oldest ${age(row.oldestAgeSeconds)}`);
  return lines;
}
