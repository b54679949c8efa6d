// Lesson 12's database: lesson 11's pool and transactions, on lab 12's database
// (tasks_lab12), whose migrations are lesson 11's tables plus export_outbox.
// One pool per process, created once at start-up and passed around.
import type { Pool } from 'mysql2/promise';
import * as lab11 from '@tasks-lab/11-mysql-leases';
import { JOBS_DATABASE, LAB, VERIFY_DATABASE } from './options.ts';

export { LAB, JOBS_DATABASE, VERIFY_DATABASE };
export { withTransaction, type FreshDatabase } from '@tasks-lab/11-mysql-leases';

/** The process's pool on lab 12's database (or `options.database`). */
export function openJobsDatabase(options: lab11.OpenJobsDatabaseOptions = {}): Promise<Pool> {
  return lab11.openJobsDatabase({ ...options, database: options.database ?? JOBS_DATABASE });
}

/** A new database tasks_lab12_<label>_<hex>, migrated with lab 12's chain, with a pool on it (tests). */
export function freshDatabase(label: string, options: Omit<lab11.OpenJobsDatabaseOptions, 'database'> = {}): Promise<lab11.FreshDatabase> {
  return lab11.freshDatabase(label, { ...options, lab: LAB });
}

/** Runs `work` with a fresh lab 12 database and drops it afterwards, whatever happens. */
export function withFreshDatabase<T>(label: string, work: (db: lab11.FreshDatabase) => Promise<T>): Promise<T> {
  return lab11.withFreshDatabase(label, work, { lab: LAB });
}

/** Drops, recreates and migrates tasks_lab12_verify: each verify run starts from nothing. */
export function recreateVerifyDatabase(): Promise<string> {
  return lab11.recreateVerifyDatabase(LAB);
}

/**
 * Verify's database, dropped and recreated ONCE per process: every check of one verify
 * run (the outbox checks and the drills) shares it. A failed attempt is forgotten.
 */
export function verifyDatabaseOnce(): Promise<string> {
  return lab11.verifyDatabaseOnce(LAB);
}
