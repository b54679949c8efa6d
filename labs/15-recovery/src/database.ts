// Lesson 15's database: lesson 11's pool and transactions, on lab 15's database
// (tasks_lab15), whose migrations are lessons 11 to 14's tables plus the dead letters and replay_of.
// One pool per process, created once at start-up and passed around.
import { labDatabases } from '@tasks-lab/11-mysql-leases';
import { JOBS_DATABASE, LAB, VERIFY_DATABASE } from './options.ts';

export { LAB, JOBS_DATABASE, VERIFY_DATABASE };
export { withTransaction, type FreshDatabase } from '@tasks-lab/11-mysql-leases';

/**
 * openJobsDatabase (the process's pool on tasks_lab15), freshDatabase / withFreshDatabase
 * (tests: tasks_lab15_<label>_<hex>, migrated with lab 15's chain), recreateVerifyDatabase
 * and verifyDatabaseOnce (verify's tasks_lab15_verify).
 */
export const { openJobsDatabase, freshDatabase, withFreshDatabase, recreateVerifyDatabase, verifyDatabaseOnce } =
  labDatabases(LAB, JOBS_DATABASE);
