// Lesson 14's database: lesson 11's pool and transactions, on lab 14's database
// (tasks_lab14), whose migrations are lessons 11 to 13's tables plus the schedule slots.
// One pool per process, created once at start-up and passed around.
import { labDatabases } from '@tasks-lab/11-mysql-leases';
import { JOBS_DATABASE, LAB, VERIFY_DATABASE } from './options.ts';

export { LAB, JOBS_DATABASE, VERIFY_DATABASE };
export { withTransaction, type FreshDatabase } from '@tasks-lab/11-mysql-leases';

/**
 * openJobsDatabase (the process's pool on tasks_lab14), freshDatabase / withFreshDatabase
 * (tests: tasks_lab14_<label>_<hex>, migrated with lab 14's chain), recreateVerifyDatabase
 * and verifyDatabaseOnce (verify's tasks_lab14_verify).
 */
export const { openJobsDatabase, freshDatabase, withFreshDatabase, recreateVerifyDatabase, verifyDatabaseOnce } =
  labDatabases(LAB, JOBS_DATABASE);
