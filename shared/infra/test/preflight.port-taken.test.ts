import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startPrivateRedis, type PrivateRedis } from '../src/private-redis.ts';
import { preflight } from '../src/services.ts';
import type { Credentials } from '../src/credentials.ts';

const credentials: Credentials = {
  redisPassword: 'not-the-real-one-0123456789abcdef',
  mysqlRootPassword: 'root-secret-0123456789abcdef',
  mysqlUser: 'tasks',
  mysqlPassword: 'app-secret-0123456789abcdef',
};

let squatter: Server | undefined;
const squatterSockets = new Set<Socket>();
let otherRedis: PrivateRedis | undefined;
afterEach(async () => {
  for (const socket of squatterSockets) socket.destroy();
  squatterSockets.clear();
  await new Promise<void>((resolve) => (squatter ? squatter.close(() => resolve()) : resolve()));
  squatter = undefined;
  await otherRedis?.close();
  otherRedis = undefined;
});

/** Something that accepts connections and answers nonsense, like a web server would. */
async function occupy(port: number): Promise<void> {
  squatter = createServer((socket) => {
    squatterSockets.add(socket);
    socket.on('error', () => {}); // the probing client may hang up abruptly
    socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  });
  await new Promise<void>((resolve) => squatter!.listen(port, '127.0.0.1', () => resolve()));
}

/** Something that accepts connections and never says a word: no answer ever comes back. */
async function occupySilently(port: number): Promise<void> {
  squatter = createServer((socket) => {
    squatterSockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => squatter!.listen(port, '127.0.0.1', () => resolve()));
}

describe('preflight', () => {
  it('When a program holds the Redis port and never answers, Then it is reported port-taken within seconds instead of waiting for ever [test:probe-silent-port]', {
    timeout: 20_000,
  }, async () => {
    const port = await freePort();
    await occupySilently(port);
    const started = performance.now();
    const problems = await preflight(['redis'], {
      mode: 'docker',
      settings: { host: '127.0.0.1', redisPort: port, mysqlPort: await freePort() },
      credentials,
    });
    expect(problems.map((p) => [p.service, p.code])).toEqual([['redis', 'port-taken']]);
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('When another program holds the Redis port, Then it reports port-taken with the port and how to choose another', async () => {
    const port = await freePort();
    await occupy(port);
    const problems = await preflight(['redis'], {
      mode: 'docker', // skip the binary checks: this test is about the port
      settings: { host: '127.0.0.1', redisPort: port, mysqlPort: await freePort() },
      credentials,
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ service: 'redis', code: 'port-taken' });
    expect(problems[0]?.message).toContain(`port ${port} is already in use`);
    expect(problems[0]?.message).toContain('TASKS_LAB_REDIS_PORT');
  });

  it('When another program holds the database port, Then it reports port-taken for mysql', async () => {
    const port = await freePort();
    await occupy(port);
    const problems = await preflight(['mysql'], {
      mode: 'docker',
      settings: { host: '127.0.0.1', redisPort: await freePort(), mysqlPort: port },
      credentials,
    });
    expect(problems.map((p) => [p.service, p.code])).toEqual([['mysql', 'port-taken']]);
    expect(problems[0]?.message).toContain('TASKS_LAB_MYSQL_PORT');
  });

  it('When a Redis with another password holds the port, Then it reports bad-password without printing any password', async () => {
    otherRedis = await startPrivateRedis();
    const problems = await preflight(['redis'], {
      mode: 'docker',
      settings: { host: '127.0.0.1', redisPort: otherRedis.port, mysqlPort: await freePort() },
      credentials,
    });
    expect(problems.map((p) => p.code)).toEqual(['bad-password']);
    expect(problems[0]?.message).not.toContain(credentials.redisPassword);
  });

  it('When the ports are free, Then there is nothing to report', async () => {
    const problems = await preflight(['redis', 'mysql'], {
      mode: 'docker',
      settings: { host: '127.0.0.1', redisPort: await freePort(), mysqlPort: await freePort() },
      credentials,
    });
    expect(problems).toEqual([]);
  });
});
