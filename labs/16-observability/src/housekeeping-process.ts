// `pnpm housekeeping`: one housekeeping pass (src/housekeeping.ts) on lab 16's database and
// artifacts folder, with the options' retentions, then the growth it leaves: each table's
// estimated rows and bytes, and the Redis keys under the lab's BullMQ prefix. Run it from cron
// (or a scheduler) in production: the course's deep dive, "the clean-up only happens if the
// clean-up task actually runs".
//
//   pnpm housekeeping                                  7 days of sent events, 30 of terminal jobs, 1 day of grace,
//                                                      1 hour for the temp files of killed writers
//   OUTBOX_RETENTION_MS=0 pnpm housekeeping            every sent event (but each job's first) goes now
//   JOB_RETENTION_MS=3600000 pnpm housekeeping         terminal jobs untouched for an hour go
//   TEMP_FILE_GRACE_MS=600000 pnpm housekeeping        temp files untouched for 10 minutes go
//   HOUSEKEEPING_BATCH=100 pnpm housekeeping           100 rows per DELETE transaction
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { runMain, formatDuration } from '@tasks-lab/lab-kit';
import { openNudgeClient } from '@tasks-lab/12-outbox';
import { openJobsDatabase } from './database.ts';
import { displayPath } from './display-path.ts';
import { formatHousekeeping, runHousekeeping } from './housekeeping.ts';
import { createMetrics, formatGrowth, redisReady } from './metrics.ts';
import { LAB, readObservabilityOptions, SERVER_PROCESS_OPTIONS } from './options.ts';

async function main(): Promise<void> {
  const settings = SERVER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  const options = readObservabilityOptions();
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  await migrateLab(LAB, { database: settings.database });
  const pool = await openJobsDatabase({ database: settings.database, settings: options });
  const redis = openNudgeClient();
  try {
    console.log(
      `housekeeping on ${settings.database} and ${displayPath(settings.artifactsDir)}: sent events older than ${formatDuration(options.outboxRetentionMs)}, ` +
        `terminal jobs older than ${formatDuration(options.jobRetentionMs)}, unreferenced files older than ${formatDuration(options.artifactGraceMs)}, ` +
        `temp files untouched for ${formatDuration(options.tempFileGraceMs)}, ` +
        `${options.housekeepingBatch} rows per statement`,
    );
    const report = await runHousekeeping(pool, settings.artifactsDir, {
      outboxRetentionMs: options.outboxRetentionMs,
      jobRetentionMs: options.jobRetentionMs,
      artifactGraceMs: options.artifactGraceMs,
      tempFileGraceMs: options.tempFileGraceMs,
      batch: options.housekeepingBatch,
    });
    for (const line of formatHousekeeping(report)) console.log(line);
    console.log(`(${report.statements} DELETE transactions, ${report.ms} ms)`);
    const metrics = createMetrics({
      pool,
      redis: await redisReady(redis),
      prefixes: [settings.queuePrefix],
      database: settings.database,
    });
    for (const line of formatGrowth(await metrics.read())) console.log(line);
  } finally {
    redis.disconnect();
    await pool.end();
  }
}

runMain(import.meta.url, main);
