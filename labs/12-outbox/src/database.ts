// Lesson 12's database: lesson 11's pool and transactions, on lab 12's database
// (tasks_lab12), whose migrations are lesson 11's tables plus export_outbox.
// One pool per process, created once at start-up and passed around.
import { labDatabases } from '@tasks-lab/11-mysql-leases';
import { JOBS_DATABASE, LAB, VERIFY_DATABASE } from './options.ts';

export { LAB, JOBS_DATABASE, VERIFY_DATABASE };
export { withTransaction, type FreshDatabase } from '@tasks-lab/11-mysql-leases';

/**
 * openJobsDatabase (the process's pool on tasks_lab12), freshDatabase / withFreshDatabase
 * (tests: tasks_lab12_<label>_<hex>, migrated with lab 12's chain), recreateVerifyDatabase
 * and verifyDatabaseOnce (verify's tasks_lab12_verify, shared by every check of one run).
 */
export const { openJobsDatabase, freshDatabase, withFreshDatabase, recreateVerifyDatabase, verifyDatabaseOnce } =
  labDatabases(LAB, JOBS_DATABASE);
