// `pnpm drill:lease`: the course's lease drill by hand, on ONE job made for it in your
// database (tasks_lab11, or JOBS_DATABASE). Each step prints what it saw:
//   claim -> a second claim gets nothing -> the lease is pushed into the past ->
//   a claim still gets nothing, the old token cannot finish -> requeue by hand ->
//   a new claim (attempts 2, a new token) -> the old token still cannot finish ->
//   the new token's artifact is published.
// Like the course, it expires the lease with an UPDATE instead of waiting 30 s. The checks
// (pnpm verify) run the same script with a short lease that really runs out.
import type { Pool, ResultSetHeader } from 'mysql2/promise';
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { runMain } from '@tasks-lab/lab-kit';
import { writeArtifactAtomically } from '../src/artifact.ts';
import { LAB, openJobsDatabase } from '../src/database.ts';
import { artifactName, claim, finish, readJob, requeueExpiredLease, submitSnapshot } from '../src/leases.ts';
import { describeTimings, readLeaseOptions } from '../src/options.ts';
import { WORKER_PROCESS_OPTIONS } from '../src/options.ts';

/**
 * The drill's shortcut: the holder's lease ended a second ago. Only this job, only this
 * token. Affected rows: 1 = expired; 0 = the token no longer holds the job.
 */
const EXPIRE_LEASE = `
  UPDATE export_jobs SET lease_until = TIMESTAMPADD(MICROSECOND, -1000000, NOW(6))
  WHERE id = ? AND lease_token = ?`;

let failures = 0;
function step(ok: boolean, text: string): void {
  if (!ok) failures += 1;
  console.log(`${ok ? '✓' : '✗'} ${text}`);
}

async function drill(pool: Pool): Promise<void> {
  const lease = readLeaseOptions();
  const { artifactsDir } = WORKER_PROCESS_OPTIONS.read();
  const { jobId } = await submitSnapshot(pool, [1], { deadlineMs: lease.deadlineMs });
  console.log(`job ${jobId} (${describeTimings(lease)})`);

  const old = await claim(pool, jobId, lease);
  step(
    old !== undefined && old.attempts === 1,
    `first claim: token ${old?.token.slice(0, 8) ?? 'none'}, attempts ${old?.attempts ?? '-'}`,
  );
  if (!old) return;
  step((await claim(pool, jobId, lease)) === undefined, 'a second claim during the lease gets nothing');

  const [expired] = await pool.query<ResultSetHeader>(EXPIRE_LEASE, [jobId, old.token]);
  step(expired.affectedRows === 1, 'the lease is pushed one second into the past');
  step((await claim(pool, jobId, lease)) === undefined, 'the expired running job cannot be claimed directly');
  step(!(await finish(pool, jobId, old.token, 'unused')), 'the old token cannot finish');

  step(await requeueExpiredLease(pool, jobId), "requeued by hand (lesson 15's recovery scan will do this)");
  const fresh = await claim(pool, jobId, lease);
  step(
    fresh !== undefined && fresh.attempts === 2 && fresh.token !== old.token,
    `new claim: token ${fresh?.token.slice(0, 8) ?? 'none'}, attempts ${fresh?.attempts ?? '-'}`,
  );
  if (!fresh) return;
  step(!(await finish(pool, jobId, old.token, 'unused')), 'the old token still cannot finish');

  const name = artifactName(jobId, fresh.token);
  await writeArtifactAtomically(artifactsDir, name, fresh.snapshot);
  step(await finish(pool, jobId, fresh.token, name), `the new token publishes ${name}`);
  const row = await readJob(pool, jobId);
  step(
    row?.status === 'succeeded' && row.resultRef === name,
    `the row: ${row?.status}, attempts ${row?.attempts}, result_ref ${row?.resultRef}`,
  );
}

runMain(import.meta.url, async () => {
  const { database } = WORKER_PROCESS_OPTIONS.read();
  await ensureInfra({ services: ['mysql'], log: (line) => console.log(`[infra] ${line}`) });
  await migrateLab(LAB, { database });
  const pool = await openJobsDatabase({ database });
  try {
    await drill(pool);
  } finally {
    await pool.end();
  }
  console.log(failures === 0 ? 'lease ownership verified' : `${failures} step(s) did not behave as the lesson says`);
  return failures === 0 ? 0 : 1;
});
