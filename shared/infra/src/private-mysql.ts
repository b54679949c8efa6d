// A private MariaDB (or MySQL) for the soak: its own port, socket, data folder and users, started
// from the installed server binary as a child process. The soak crashes it and starts it again
// while the pipeline runs; doing that to the labs' shared database would break every other lab
// using it at the same time.
//
// Start-up: the labs' own steps (native.ts) on a folder of its own: a new data folder
// (mariadb-install-db, or mysqld --initialize-insecure: a few seconds), the server with the same
// settings, then the app user of `credentials` and the root password, over the socket.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { findBinaries, mysqlServerVersion } from './binaries.ts';
import type { Credentials } from './credentials.ts';
import { createUsers, initialiseDataDir, mysqlServerArgs } from './native.ts';
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

export async function startPrivateMysql(options: PrivateMysqlOptions): Promise<PrivateMysql> {
  const { mysqlServer: server, mysqlInstallDb: installDb } = findBinaries();
  if (!server) throw new Error('mariadbd or mysqld is not installed; run pnpm infra:up once (it installs or explains)');
  const binaries = { server, installDb, flavour: mysqlServerVersion(server)?.flavour ?? 'mariadb' } as const;
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
  const instance = {
    dataDir,
    port,
    socket: socketPath,
    pidFile: join(dir, 'mysqld.pid'),
    errorLog: join(dir, 'error.log'),
  };
  /** Starts the server and waits until `ready` says yes (or the server exits, or the time is up). */
  const start = async (ready: () => Promise<boolean>) => {
    child = spawn(binaries.server, mysqlServerArgs(instance), { stdio: 'ignore' });
    const deadline = Date.now() + startTimeoutMs;
    while (!(await ready())) {
      if (!running())
        throw new Error(`the private database on port ${port} exited while starting; see ${instance.errorLog}`);
      if (Date.now() > deadline) {
        await kill('SIGKILL');
        throw new Error(`the private database on port ${port} did not answer within ${startTimeoutMs} ms`);
      }
      await sleep(100);
    }
  };
  const appUserAnswers = async () =>
    (await probeMysql(port, credentials.mysqlUser, credentials.mysqlPassword)).state === 'healthy';
  // A fresh folder's root has no password and is reachable on the socket only.
  const rootAnswersOnSocket = () =>
    mysql.createConnection({ socketPath, user: 'root' }).then(
      async (c) => (await c.end(), true),
      () => false,
    );

  try {
    initialiseDataDir(binaries, dataDir, join(dir, 'install.log'));
    await start(rootAnswersOnSocket);
    await createUsers(credentials, socketPath);
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
