// Where the labs' services live. The course's ports are the defaults; the
// environment can move them (a student whose port 6384 is taken, or a test).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
export const INFRA_DIR = resolve(REPO_ROOT, 'infra');
/** Service data for local (non-Docker) mode; git-ignored. */
export const DATA_DIR = resolve(INFRA_DIR, '.data');
/** The course's `.env.tasks`: generated passwords, mode 0600, git-ignored, never printed. */
export const ENV_FILE = resolve(REPO_ROOT, '.env.tasks');

/**
 * The credentials the labs' clients connect with: `.env.tasks`, unless TASKS_LAB_ENV_FILE names
 * another file (the soak runs the pipeline on its own private Redis and database, whose passwords
 * it generates into a file of its own, and passes that file's path to every process it starts).
 */
export function credentialsFile(): string {
  const override = process.env.TASKS_LAB_ENV_FILE;
  return override ? resolve(override) : ENV_FILE;
}

export const HOST = '127.0.0.1';

export interface ServiceSettings {
  host: string;
  redisPort: number;
  mysqlPort: number;
}

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`${name} must be a port number from 1 to 65535, got "${raw}"`);
  }
  return port;
}

export function serviceSettings(): ServiceSettings {
  return {
    host: HOST,
    redisPort: portFromEnv('TASKS_LAB_REDIS_PORT', 6384),
    mysqlPort: portFromEnv('TASKS_LAB_MYSQL_PORT', 3307),
  };
}

/** Minimum versions: BullMQ recommends Redis 6.2+; SKIP LOCKED needs MariaDB 10.6+ or MySQL 8.0.1+. */
export const MIN_VERSIONS = { redis: '6.2.0', mariadb: '10.6.0', mysql: '8.0.1' } as const;

export function versionAtLeast(actual: string, minimum: string): boolean {
  const a = actual.split('.').map(Number);
  const b = minimum.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}
