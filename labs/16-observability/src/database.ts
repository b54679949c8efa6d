// Lesson 16's database: lesson 11's pool and transactions, on lab 16's database
// (tasks_lab16), whose migrations are lessons 11 to 15's tables plus the job's trace context.
// One pool per process, created once at start-up and passed around.
import { labDatabases } from '@tasks-lab/11-mysql-leases';
import { JOBS_DATABASE, LAB, VERIFY_DATABASE } from './options.ts';

export { LAB, JOBS_DATABASE, VERIFY_DATABASE };
export { withTransaction, type FreshDatabase } from '@tasks-lab/11-mysql-leases';

/**
 * openJobsDatabase (the process's pool on tasks_lab16), freshDatabase / withFreshDatabase
 * (tests: tasks_lab16_<label>_<hex>, migrated with lab 16's chain), recreateVerifyDatabase
 * and verifyDatabaseOnce (verify's tasks_lab16_verify).
 */
export const { openJobsDatabase, freshDatabase, withFreshDatabase, recreateVerifyDatabase, verifyDatabaseOnce } =
  labDatabases(LAB, JOBS_DATABASE);
