// Lesson 11's database as the lab's processes, scripts and tests open it: the pool of
// src/mysql-pool.ts on tasks_lab11, and the scratch databases of src/scratch-databases.ts.
// Each later lab has a file of this name that binds the same parts to its own database.
export { LAB, JOBS_DATABASE, VERIFY_DATABASE } from './options.ts';
export { openJobsDatabase, readSessionSettings, withTransaction, type DatabaseSettings } from './mysql-pool.ts';
export {
  freshDatabase,
  withFreshDatabase,
  recreateVerifyDatabase,
  verifyDatabaseOnce,
  type FreshDatabase,
} from './scratch-databases.ts';
