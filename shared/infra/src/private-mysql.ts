// A private MariaDB (or MySQL) for the soak: its own port, socket, data folder and users, started
// from the installed server binary as a child process. The soak crashes it and starts it again
// while the pipeline runs; doing that to the labs' shared database would break every other lab
// using it at the same time.
//
// Start-up: a new data folder (mariadb-install-db, or mysqld --initialize-insecure: a few
// seconds), the server, then the app user of `credentials` with rights on tasks_% databases and
// the root password, over the socket (root starts without a password, reachable there only).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { findBinaries, mysqlServerVersion } from './binaries.ts';
import type { Credentials } from './credentials.ts';
import { probeMysql } from './probe.ts';
import { freePort } from './private-redis.ts';

export interface PrivateMysql {
  port: number;
  /** The server's pid while it runs (its CPU time is part of a measurement). */
  pid(): number | undefined;
  /** SIGKILL: the database crashes; InnoDB recovers its committed work at the next start. */
  crash(): Promise<void>;
  /** Starts it again on the same port with the same data (after crash). */
  restart(): Promise<void>;
  /** Stops it for good and deletes its data. */
  close(): Promise<void>;
}

export interface PrivateMysqlOptions {
  /** The app user, its password and the root password to create. */
  credentials: Credentials;
  /** How long a start (or restart) may take before it counts as failed. @defaultValue 60000 */
  startTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function initialise(server: string, installDb: string | undefined, dataDir: string): void {
  const flavour = mysqlServerVersion(server)?.flavour ?? 'mariadb';
  const result =
    flavour === 'mariadb'
      ? spawnSync(installDb ?? 'mariadb-install-db', ['--no-defaults', `--datadir=${dataDir}`, '--user=root', '--auth-root-authentication-method=normal', '--skip-test-db'], { encoding: 'utf8' })
      : spawnSync(server, ['--no-defaults', '--initialize-insecure', `--datadir=${dataDir}`, '--user=root'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`initialising a private database folder failed: ${(result.stderr ?? '').split('\n').slice(-5).join(' ')}`);
}

async function createUsers(socketPath: string, credentials: Credentials): Promise<void> {
  const connection = await mysql.createConnection({ socketPath, user: 'root' });
  try {
    for (const host of ['localhost', '127.0.0.1']) {
      await connection.query('create user if not exists ?@? identified by ?', [credentials.mysqlUser, host, credentials.mysqlPassword]);
      await connection.query('grant all privileges on `tasks\\_%`.* to ?@?', [credentials.mysqlUser, host]);
    }
    await connection.query("alter user 'root'@'localhost' identified by ?", [credentials.mysqlRootPassword]);
    await connection.query('flush privileges');
  } finally {
    await connection.end();
  }
}

export async function startPrivateMysql(options: PrivateMysqlOptions): Promise<PrivateMysql> {
  const { mysqlServer: server, mysqlInstallDb: installDb } = findBinaries();
  if (!server) throw new Error('mariadbd or mysqld is not installed; run pnpm infra:up once (it installs or explains)');
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const { credentials } = options;
  const dir = mkdtempSync(join(tmpdir(), 'tasks-lab-mysql-'));
  const dataDir = join(dir, 'data');
  const socketPath = join(dir, 'mysqld.sock');
  const port = await freePort();
  let child: ChildProcess | undefined;

  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const kill = async (signal: NodeJS.Signals) => {
    const current = child;
    if (!current || !running()) return;
    const exited = new Promise((r) => current.once('exit', r));
    current.kill('SIGCONT');
    current.kill(signal);
    await exited;
  };
  /** Starts the server and waits until `ready` says yes (or the server exits, or the time is up). */
  const start = async (ready: () => Promise<boolean>) => {
    child = spawn(
      server,
      [
        '--no-defaults', `--datadir=${dataDir}`, `--port=${port}`, '--bind-address=127.0.0.1', `--socket=${socketPath}`,
        `--pid-file=${join(dir, 'mysqld.pid')}`, `--log-error=${join(dir, 'error.log')}`, '--user=root',
        '--character-set-server=utf8mb4', '--collation-server=utf8mb4_unicode_ci', '--default-time-zone=+00:00',
        '--innodb-buffer-pool-size=64M', '--max-connections=300',
      ],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + startTimeoutMs;
    while (!(await ready())) {
      if (!running()) throw new Error(`the private database on port ${port} exited while starting; see ${join(dir, 'error.log')}`);
      if (Date.now() > deadline) {
        await kill('SIGKILL');
        throw new Error(`the private database on port ${port} did not answer within ${startTimeoutMs} ms`);
      }
      await sleep(100);
    }
  };
  const appUserAnswers = async () => (await probeMysql(port, credentials.mysqlUser, credentials.mysqlPassword)).state === 'healthy';
  // A fresh folder's root has no password and is reachable on the socket only.
  const rootAnswersOnSocket = () =>
    mysql.createConnection({ socketPath, user: 'root' }).then(
      async (c) => (await c.end(), true),
      () => false,
    );

  try {
    initialise(server, installDb, dataDir);
    await start(rootAnswersOnSocket);
    await createUsers(socketPath, credentials);
    const deadline = Date.now() + startTimeoutMs;
    while (!(await appUserAnswers())) {
      if (Date.now() > deadline) throw new Error(`the private database on port ${port} does not let its app user in`);
      await sleep(100);
    }
  } catch (err) {
    await kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    pid: () => (running() ? child?.pid : undefined),
    crash: () => kill('SIGKILL'),
    restart: () => start(appUserAnswers),
    async close() {
      await kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
