// A private Redis for one drill: its own port, password and data folder, started
// as a child process in ~0.1 s. A drill that stops, pauses or crashes Redis does it
// to this one, so no other lab running at the same time is disturbed.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisOptions } from 'ioredis';
import { findBinary } from './binaries.ts';
import { probeRedis } from './probe.ts';

export interface PrivateRedis {
  port: number;
  /** Connection options for ioredis / BullMQ (password included; never print them). */
  options(overrides?: RedisOptions): RedisOptions;
  /** SIGSTOP: the server stops answering but keeps its connections (a hung broker). */
  pause(): void;
  resume(): void;
  /** SIGKILL: the broker crashes. */
  crash(): Promise<void>;
  /** Starts it again on the same port with the same data (after crash). */
  restart(): Promise<void>;
  /** Stops it for good and deletes its data. */
  close(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface PrivateRedisOptions {
  /** How long a start (or restart) may take before it counts as failed. */
  startTimeoutMs?: number;
  /** @defaultValue a new random one (the soak passes the one in its own credentials file) */
  password?: string;
  /** @defaultValue 64 */
  maxMemoryMb?: number;
}

export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  const binary = findBinary(['redis-server']);
  if (!binary) throw new Error('redis-server is not installed; run pnpm infra:up once (it installs or explains)');
  const dir = mkdtempSync(join(tmpdir(), 'tasks-lab-redis-'));
  const port = await freePort();
  const password = options.password ?? randomBytes(16).toString('hex');
  const conf = join(dir, 'redis.conf');
  writeFileSync(
    conf,
    [
      `bind 127.0.0.1`,
      `port ${port}`,
      `requirepass ${password}`,
      'appendonly yes',
      'appendfsync everysec',
      'save ""',
      `maxmemory ${options.maxMemoryMb ?? 64}mb`,
      'maxmemory-policy noeviction',
      `dir ${dir}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  let child: ChildProcess | undefined;
  const stop = async (signal: NodeJS.Signals) => {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((r) => current.once('exit', r));
    current.kill('SIGCONT');
    current.kill(signal);
    await exited;
  };
  const start = async () => {
    child = spawn(binary, [conf], { stdio: 'ignore' });
    const deadline = Date.now() + startTimeoutMs;
    while ((await probeRedis(port, password)).state !== 'healthy') {
      if (Date.now() > deadline) {
        // A server that is late may still come up: it must not outlive the drill that gave up on it.
        await stop('SIGKILL');
        throw new Error(`private Redis on port ${port} did not answer within ${startTimeoutMs} ms`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    await start();
  } catch (err) {
    // Nobody got a handle to close(): the folder (config with its password, data) goes now.
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    options: (overrides = {}) => ({ host: '127.0.0.1', port, password, maxRetriesPerRequest: null, ...overrides }),
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    crash: () => stop('SIGKILL'),
    restart: start,
    async close() {
      await stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
