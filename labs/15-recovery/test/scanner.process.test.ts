// `pnpm scanner` as a real process, on a fresh database: it recovers a job whose lease passed
// (one line per recovered job) and, on SIGTERM, stops after the batch in flight, closes its
// pool and exits 0 within the grace.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTS_ENV, launchProcess, type LabProcess } from '@tasks-lab/lab-kit';
import { claim, EXPIRE_LEASE, readJob } from '@tasks-lab/11-mysql-leases';
import { admitExport, FAST_QUEUE } from '@tasks-lab/13-admission';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { RECOVERY_OPTIONS, readShortRecoveryOptions, SERVER_PROCESS_OPTIONS } from '../src/options.ts';
import { SCANNER_SHUTDOWN_GRACE_MS } from '../src/scanner-process.ts';

const SCANNER = fileURLToPath(new URL('../src/scanner-process.ts', import.meta.url));

const timings = readShortRecoveryOptions({});
let db: FreshDatabase;
let scanner: LabProcess | undefined;

beforeAll(async () => {
  db = await freshDatabase('scannerproc', { settings: timings });
}, 60_000);
afterAll(async () => {
  await scanner?.kill();
  await db?.drop();
});

describe('the scanner process', () => {
  it("When a job's lease has passed, Then `pnpm scanner` requeues it and prints one line for it [test:scanner-process-recovers]", async () => {
    const { jobId } = await admitExport(db.pool, [1, 2]);
    expect(await claim(db.pool, jobId, { leaseMs: timings.leaseMs })).toBeDefined();
    await db.pool.query(EXPIRE_LEASE, [jobId]);
    scanner = await launchProcess(SCANNER, {
      ready: /recovery scanner \d+ ready/,
      env: {
        ...RECOVERY_OPTIONS.toEnv(timings),
        ...SERVER_PROCESS_OPTIONS.toEnv({ database: db.name }),
        [FAULTS_ENV]: '',
      },
    });
    await scanner.waitForOutput(
      new RegExp(
        `recovered job ${jobId}: running -> queued \\(lease_expired\\), event [0-9a-f-]{36} on ${FAST_QUEUE.replace('.', '\\.')}`,
      ),
      10_000,
    );
    expect(await readJob(db.pool, jobId)).toMatchObject({ status: 'queued', attempts: 1, errorCode: 'lease_expired' });
  }, 60_000);

  it('When it gets SIGTERM, Then it stops after the batch in flight and exits 0 within the grace [test:scanner-sigterm-clean-exit]', async () => {
    expect(scanner, 'the previous test starts the scanner').toBeDefined();
    const started = Date.now();
    const exit = await scanner!.stop(SCANNER_SHUTDOWN_GRACE_MS);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(SCANNER_SHUTDOWN_GRACE_MS);
    expect(scanner!.output()).toMatch(/SIGTERM: closing/);
    expect(scanner!.output()).not.toMatch(/error:/);
  }, 30_000);
});
