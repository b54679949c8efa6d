// `pnpm slots`: the course's step 6 as a command. The ten newest slots, newest first: which
// period's run was scheduled, by which job, and when. Stop the fast worker for a few intervals,
// start it again, and run this: the periods it was down have no slot each, only the one overdue
// run BullMQ keeps (no backfill), then the normal cadence again.
import type { RowDataPacket } from 'mysql2/promise';
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { runMain } from '@tasks-lab/lab-kit';
import { openJobsDatabase } from './database.ts';
import { LAB, SERVER_PROCESS_OPTIONS } from './options.ts';
import { LATEST_SLOTS } from './slot-queries.ts';

/** The course's LIMIT 10. */
export const SLOTS_SHOWN = 10;

/** One slot as a line: "2026-01-01T10:00:00.012Z  shop-export:…  job <uuid>" (created_at is UTC: the session's zone). */
export function formatSlot(row: RowDataPacket): string {
  const createdAt = row.created_at instanceof Date ? row.created_at.toISOString() : String(row.created_at);
  return `${createdAt}  ${String(row.slot_key)}  job ${String(row.job_id)}`;
}

async function main(): Promise<void> {
  const settings = SERVER_PROCESS_OPTIONS.read();
  await ensureInfra({ services: ['mysql'], log: (line) => console.log(`[infra] ${line}`) });
  await migrateLab(LAB, { database: settings.database });
  const pool = await openJobsDatabase({ database: settings.database });
  try {
    const [rows] = await pool.query<RowDataPacket[]>(LATEST_SLOTS, [SLOTS_SHOWN]);
    if (rows.length === 0) {
      console.log(`no slots in ${settings.database} yet: start \`pnpm worker:fast\`, then \`pnpm schedule\``);
      return;
    }
    console.log(`the ${rows.length} newest slots in ${settings.database}, newest first (created_at in UTC):`);
    for (const row of rows) console.log(formatSlot(row));
  } finally {
    await pool.end();
  }
}

runMain(import.meta.url, main);
