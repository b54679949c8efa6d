// Lesson 13's database: lesson 11's pool and transactions, on lab 13's database
// (tasks_lab13), whose migrations are lessons 11 and 12's tables plus the admission gate.
// One pool per process, created once at start-up and passed around.
import { labDatabases } from '@tasks-lab/11-mysql-leases';
import { JOBS_DATABASE, LAB, VERIFY_DATABASE } from './options.ts';

export { LAB, JOBS_DATABASE, VERIFY_DATABASE };
export { withTransaction, type FreshDatabase } from '@tasks-lab/11-mysql-leases';

/**
 * openJobsDatabase (the process's pool on tasks_lab13), freshDatabase / withFreshDatabase
 * (tests: tasks_lab13_<label>_<hex>, migrated with lab 13's chain), recreateVerifyDatabase
 * and verifyDatabaseOnce (verify's tasks_lab13_verify).
 */
export const { openJobsDatabase, freshDatabase, withFreshDatabase, recreateVerifyDatabase, verifyDatabaseOnce } =
  labDatabases(LAB, JOBS_DATABASE);
