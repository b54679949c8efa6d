// Connection settings for the labs. Each lab passes its own name so that labs
// running in parallel never share data: BullMQ prefix `tasks-lab08`, database `tasks_lab10`.
import type { RedisOptions } from 'ioredis';
import mysql from 'mysql2/promise';
import { loadCredentials } from './credentials.ts';
import { serviceSettings } from './settings.ts';

/** Options for an ioredis client or a BullMQ `connection` (Workers need maxRetriesPerRequest null). */
export function redisOptions(overrides: RedisOptions = {}): RedisOptions {
  const { host, redisPort } = serviceSettings();
  return {
    host,
    port: redisPort,
    password: loadCredentials().redisPassword,
    maxRetriesPerRequest: null,
    ...overrides,
  };
}

/** The BullMQ key prefix for a lab, e.g. labPrefix('08') -> 'tasks-lab08'. */
export function labPrefix(lab: string): string {
  if (!/^\d\d$/.test(lab)) throw new Error(`lab must be two digits, got "${lab}"`);
  return `tasks-lab${lab}`;
}

/** The database a lab owns, e.g. labDatabase('10') -> 'tasks_lab10'. */
export function labDatabase(lab: string): string {
  if (!/^\d\d$/.test(lab)) throw new Error(`lab must be two digits, got "${lab}"`);
  return `tasks_lab${lab}`;
}

/**
 * mysql2 pool options for a lab's database. `timezone: 'Z'` because the server runs
 * in UTC and mysql2 would otherwise read DATETIMEs in the process's local zone.
 */
export function mysqlOptions(database: string, overrides: mysql.PoolOptions = {}): mysql.PoolOptions {
  const { host, mysqlPort } = serviceSettings();
  const credentials = loadCredentials();
  return {
    host,
    port: mysqlPort,
    user: credentials.mysqlUser,
    password: credentials.mysqlPassword,
    database,
    timezone: 'Z',
    connectionLimit: 5,
    ...overrides,
  };
}

/** Creates the lab's database if needed and returns a pool on it. */
export async function openLabDatabase(lab: string, overrides: mysql.PoolOptions = {}): Promise<mysql.Pool> {
  const database = labDatabase(lab);
  const bootstrap = await mysql.createConnection({ ...mysqlOptions(database), database: undefined });
  try {
    // The name is built from two checked digits above, never from input; identifiers cannot be `?` parameters.
    await bootstrap.query(
      `create database if not exists \`${database}\` character set utf8mb4 collate utf8mb4_unicode_ci`,
    );
  } finally {
    await bootstrap.end();
  }
  return mysql.createPool(mysqlOptions(database, overrides));
}
