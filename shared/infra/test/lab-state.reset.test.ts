// What `pnpm lab NN --reset` removes from the services: the lab's database and the keys under its
// prefix, and nothing of another lab's (tasks-lab97: must not take tasks-lab970:'s keys).
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { afterAll, describe, expect, it } from 'vitest';
import { mysqlOptions, redisOptions } from '../src/connections.ts';
import { deleteLabKeys, dropLabDatabase } from '../src/lab-state.ts';

const redis = new Redis(redisOptions());
afterAll(async () => {
  await redis.del('tasks-lab970:kept');
  redis.disconnect();
});

describe('resetting a lab in the services', () => {
  it('When a lab has a database, Then it is dropped and its tables named; a second reset finds nothing', async () => {
    const { connectionLimit: _pool, ...options } = mysqlOptions('tasks_lab97');
    const connection = await mysql.createConnection({ ...options, database: undefined });
    await connection.query('CREATE DATABASE IF NOT EXISTS tasks_lab97');
    await connection.query('CREATE TABLE IF NOT EXISTS tasks_lab97.export_jobs (id INT PRIMARY KEY)');
    await connection.end();
    expect(await dropLabDatabase('97')).toEqual({ database: 'tasks_lab97', existed: true, tables: ['export_jobs'] });
    expect(await dropLabDatabase('97')).toEqual({ database: 'tasks_lab97', existed: false, tables: [] });
  });

  it("When keys live under the lab's prefix, Then each is deleted, and a longer prefix that starts the same is kept", async () => {
    await redis.set('tasks-lab97:exports:1', 'x');
    await redis.hset('tasks-lab97:exports:repeat:slot', 'every', '60000');
    await redis.set('tasks-lab970:kept', 'x');
    expect(await deleteLabKeys('97')).toEqual({ prefix: 'tasks-lab97', deleted: 2 });
    expect(await redis.exists('tasks-lab97:exports:1', 'tasks-lab97:exports:repeat:slot')).toBe(0);
    expect(await redis.get('tasks-lab970:kept')).toBe('x');
  });
});
