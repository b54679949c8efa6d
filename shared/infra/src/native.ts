// Local mode: the labs' Redis and database run from the installed binaries, with
// their data under infra/.data (git-ignored). Used where no Docker engine runs.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import type { Credentials } from './credentials.ts';
import { probeMysql, probeRedis } from './probe.ts';
import { DATA_DIR, HOST, REPO_ROOT, type ServiceSettings } from './settings.ts';

export const REDIS_DIR = join(DATA_DIR, 'redis');
export const MYSQL_DIR = join(DATA_DIR, 'mysql');
const MYSQL_DATA = join(MYSQL_DIR, 'data');
const MYSQL_PID = join(MYSQL_DIR, 'mysqld.pid');
const MYSQL_READY = join(MYSQL_DIR, 'users-created');

/** A unix socket path must stay under ~100 bytes, so it lives in /tmp, named after this checkout. */
export const MYSQL_SOCKET = `/tmp/tasks-lab-${createHash('sha1').update(REPO_ROOT).digest('hex').slice(0, 10)}-mysqld.sock`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
  logFile?: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await sleep(100);
  }
  const tail =
    logFile && existsSync(logFile)
      ? `\nlast lines of ${logFile}:\n${readFileSync(logFile, 'utf8').split('\n').slice(-12).join('\n')}`
      : '';
  throw new Error(`${what} did not become ready within ${timeoutMs} ms${tail}`);
}

export function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

// ---- Redis -------------------------------------------------------------------

export function redisConfig(settings: ServiceSettings, password: string, dir: string): string {
  return [
    '# Written by tasks-lab infra. Mode 0600: it holds the password (kept off the command line).',
    `bind ${HOST}`,
    `port ${settings.redisPort}`,
    'protected-mode yes',
    `requirepass ${password}`,
    // BullMQ's data must survive a restart and must never be evicted.
    'appendonly yes',
    'appendfsync everysec',
    'save ""',
    'maxmemory 256mb',
    'maxmemory-policy noeviction',
    `dir ${dir}`,
    'daemonize yes',
    `pidfile ${join(dir, 'redis.pid')}`,
    `logfile ${join(dir, 'redis.log')}`,
    '',
  ].join('\n');
}

export async function startNativeRedis(
  binary: string,
  settings: ServiceSettings,
  credentials: Credentials,
): Promise<void> {
  mkdirSync(REDIS_DIR, { recursive: true, mode: 0o700 });
  const conf = join(REDIS_DIR, 'redis.conf');
  writeFileSync(conf, redisConfig(settings, credentials.redisPassword, REDIS_DIR), { mode: 0o600 });
  const result = spawnSync(binary, [conf], { stdio: 'ignore' });
  if (result.status !== 0)
    throw new Error(`redis-server exited with ${result.status}; see ${join(REDIS_DIR, 'redis.log')}`);
  await waitUntil(
    `Redis on port ${settings.redisPort}`,
    async () => (await probeRedis(settings.redisPort, credentials.redisPassword)).state === 'healthy',
    10_000,
    join(REDIS_DIR, 'redis.log'),
  );
}

export function nativeRedisPid(): number | undefined {
  return readPid(join(REDIS_DIR, 'redis.pid'));
}

// ---- MariaDB / MySQL ---------------------------------------------------------

/** A new data folder (root without a password, reachable on the socket only); its output goes to `log`. */
export function initialiseDataDir(binaries: MysqlBinaries, dataDir: string, log: string): void {
  const result =
    binaries.flavour === 'mariadb'
      ? spawnSync(
          binaries.installDb ?? 'mariadb-install-db',
          [
            '--no-defaults',
            `--datadir=${dataDir}`,
            '--user=root',
            '--auth-root-authentication-method=normal',
            '--skip-test-db',
          ],
          { encoding: 'utf8' },
        )
      : spawnSync(binaries.server, ['--no-defaults', '--initialize-insecure', `--datadir=${dataDir}`, '--user=root'], {
          encoding: 'utf8',
        });
  writeFileSync(log, `${result.stdout ?? ''}\n${result.stderr ?? ''}`);
  if (result.status !== 0) throw new Error(`initialising the database data folder failed; see ${log}`);
}

/** Where one server instance keeps its files. */
export interface MysqlInstance {
  dataDir: string;
  port: number;
  socket: string;
  pidFile: string;
  errorLog: string;
}

/** The server's command line: the labs' instance and the soak's private ones run with the same settings. */
export function mysqlServerArgs(instance: MysqlInstance): string[] {
  return [
    '--no-defaults',
    `--datadir=${instance.dataDir}`,
    `--port=${instance.port}`,
    `--bind-address=${HOST}`,
    `--socket=${instance.socket}`,
    `--pid-file=${instance.pidFile}`,
    `--log-error=${instance.errorLog}`,
    '--user=root',
    '--character-set-server=utf8mb4',
    '--collation-server=utf8mb4_unicode_ci',
    '--default-time-zone=+00:00',
    '--innodb-buffer-pool-size=128M',
  ];
}

/** Root password, the app user and its grants: every lab's database is named tasks_<lab>. */
export async function createUsers(credentials: Credentials, socketPath: string = MYSQL_SOCKET): Promise<void> {
  // A fresh data folder has a root without a password (reachable on the socket only);
  // a folder set up earlier has the root password from .env.tasks.
  let connection: mysql.Connection;
  try {
    connection = await mysql.createConnection({ socketPath, user: 'root', password: credentials.mysqlRootPassword });
  } catch {
    connection = await mysql.createConnection({ socketPath, user: 'root' });
  }
  try {
    for (const host of ['localhost', '127.0.0.1', '%']) {
      await connection.query('create user if not exists ?@? identified by ?', [
        credentials.mysqlUser,
        host,
        credentials.mysqlPassword,
      ]);
      await connection.query('alter user ?@? identified by ?', [
        credentials.mysqlUser,
        host,
        credentials.mysqlPassword,
      ]);
      await connection.query('grant all privileges on `tasks\\_%`.* to ?@?', [credentials.mysqlUser, host]);
    }
    await connection.query("alter user 'root'@'localhost' identified by ?", [credentials.mysqlRootPassword]);
    await connection.query('flush privileges');
  } finally {
    await connection.end();
  }
}

export interface MysqlBinaries {
  server: string;
  installDb?: string;
  flavour: 'mariadb' | 'mysql';
}

export async function startNativeMysql(
  binaries: MysqlBinaries,
  settings: ServiceSettings,
  credentials: Credentials,
): Promise<void> {
  if (!existsSync(join(MYSQL_DATA, 'mysql'))) {
    rmSync(MYSQL_DATA, { recursive: true, force: true });
    rmSync(MYSQL_READY, { force: true });
    mkdirSync(MYSQL_DIR, { recursive: true, mode: 0o700 });
    initialiseDataDir(binaries, MYSQL_DATA, join(MYSQL_DIR, 'install.log'));
  }
  const instance = {
    dataDir: MYSQL_DATA,
    port: settings.mysqlPort,
    socket: MYSQL_SOCKET,
    pidFile: MYSQL_PID,
    errorLog: join(MYSQL_DIR, 'error.log'),
  };
  const child = spawn(binaries.server, mysqlServerArgs(instance), { detached: true, stdio: 'ignore' });
  child.unref();
  await waitUntil(
    `the database on port ${settings.mysqlPort}`,
    async () =>
      existsSync(MYSQL_SOCKET) &&
      (await mysql
        .createConnection({ socketPath: MYSQL_SOCKET, user: 'root', password: credentials.mysqlRootPassword })
        .then(
          async (c) => (await c.end(), true),
          (err: { errno?: number }) => err.errno === 1045 || err.errno === 1698, // up, but root has no password yet
        )),
    30_000,
    join(MYSQL_DIR, 'error.log'),
  );
  if (!existsSync(MYSQL_READY)) {
    await createUsers(credentials);
    writeFileSync(MYSQL_READY, new Date().toISOString() + '\n');
  }
  await waitUntil(
    `the app user on port ${settings.mysqlPort}`,
    async () =>
      (await probeMysql(settings.mysqlPort, credentials.mysqlUser, credentials.mysqlPassword)).state === 'healthy',
    10_000,
  );
}

export function nativeMysqlPid(): number | undefined {
  return readPid(MYSQL_PID);
}

/** Stops a local service by pid (SIGTERM, then SIGKILL after the timeout). */
export async function stopPid(pid: number | undefined, timeoutMs = 20_000): Promise<boolean> {
  if (!pid) return false;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return false;
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await sleep(100);
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
  return true;
}
