// The soak's private database: its own folder, port and users; a crash loses nothing that was
// committed, a restart lets the same user in again, and close() leaves nothing behind.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBinaries } from '../src/binaries.ts';
import type { Credentials } from '../src/credentials.ts';
import { startPrivateMysql } from '../src/private-mysql.ts';

const credentials: Credentials = {
  redisPassword: 'unused',
  mysqlRootPassword: 'root-secret-for-test',
  mysqlUser: 'tasks',
  mysqlPassword: 'app-secret-for-test',
};
const hasServer = findBinaries().mysqlServer !== undefined;

let tempRoot: string;
let savedTmpdir: string | undefined;
beforeAll(() => {
  // os.tmpdir() reads TMPDIR on every call: the private database's folder is made in here.
  savedTmpdir = process.env.TMPDIR;
  tempRoot = mkdtempSync(join(tmpdir(), 'private-mysql-test-'));
  process.env.TMPDIR = tempRoot;
});
afterAll(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  rmSync(tempRoot, { recursive: true, force: true });
});

describe.runIf(hasServer)('startPrivateMysql', () => {
  it('keeps a committed row across a crash and a restart, and deletes its folder on close', async () => {
    const db = await startPrivateMysql({ credentials });
    const connect = () =>
      mysql.createConnection({
        host: '127.0.0.1',
        port: db.port,
        user: credentials.mysqlUser,
        password: credentials.mysqlPassword,
      });
    try {
      const before = await connect();
      await before.query('create database tasks_private_test');
      await before.query('create table tasks_private_test.t (id int primary key) engine=InnoDB');
      await before.query('insert into tasks_private_test.t values (1)');
      await before.end();

      await db.crash();
      expect(db.pid()).toBeUndefined();
      await expect(connect()).rejects.toThrow(); // connections refused while it is down

      await db.restart();
      const after = await connect();
      const [rows] = await after.query('select id from tasks_private_test.t');
      await after.end();
      expect(rows).toEqual([{ id: 1 }]);
    } finally {
      await db.close();
    }
    expect(readdirSync(tempRoot).filter((name) => name.startsWith('tasks-lab-mysql-'))).toEqual([]);
    expect(existsSync(tempRoot)).toBe(true);
  }, 60_000);
});
