// `pnpm backlog`: the course's step 5 as a command. How many jobs wait or run, per status
// and per queue, how long the oldest has waited, and the events not yet sent. Run it while
// the workers are stopped, then again after they are back: the oldest age goes down.
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { runMain } from '@tasks-lab/lab-kit';
import { formatBacklog, readBacklog } from './backlog.ts';
import { openJobsDatabase } from './database.ts';
import { LAB, SERVER_PROCESS_OPTIONS } from './options.ts';

async function main(): Promise<void> {
  const settings = SERVER_PROCESS_OPTIONS.read();
  await ensureInfra({ services: ['mysql'], log: (line) => console.log(`[infra] ${line}`) });
  await migrateLab(LAB, { database: settings.database });
  const pool = await openJobsDatabase({ database: settings.database });
  try {
    for (const line of formatBacklog(await readBacklog(pool))) console.log(line);
  } finally {
    await pool.end();
  }
}

runMain(import.meta.url, main);
