// Asking a port what is behind it, without ever printing a password.
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';

export type ProbeState = 'healthy' | 'down' | 'auth-failed' | 'other-service';

export interface ProbeResult {
  state: ProbeState;
  version?: string;
  /** A short reason, safe to print (no credentials). */
  detail: string;
}

/** True when something accepts TCP connections on host:port. */
export function portInUse(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    const done = (used: boolean) => {
      socket.destroy();
      resolve(used);
    };
    socket.setTimeout(timeoutMs, () => done(true));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export async function probeRedis(port: number, password: string, host = '127.0.0.1'): Promise<ProbeResult> {
  if (!(await portInUse(port, host))) return { state: 'down', detail: `nothing listens on ${host}:${port}` };
  const client = new Redis({
    host,
    port,
    password,
    lazyConnect: true,
    connectTimeout: 2000,
    // A program that accepts the connection and never answers (not a Redis) would leave AUTH
    // waiting for ever: every command, AUTH included, gives up after this.
    commandTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // A failed AUTH arrives as an 'error' event; connect() itself only says "Connection is closed".
  let lastError = '';
  client.on('error', (err: Error) => {
    lastError = err.message;
  });
  try {
    await client.connect();
    const pong = await client.ping();
    const info = await client.info('server');
    const version = /redis_version:(\S+)/.exec(info)?.[1];
    return { state: pong === 'PONG' ? 'healthy' : 'other-service', version, detail: `PING -> ${pong}` };
  } catch (err) {
    const message = `${err instanceof Error ? err.message : String(err)} ${lastError}`;
    if (/NOAUTH|WRONGPASS|invalid password|AUTH/i.test(message)) {
      return { state: 'auth-failed', detail: 'a Redis answers but rejects the password in .env.tasks' };
    }
    return {
      state: 'other-service',
      detail: `something answers on ${host}:${port} but not as Redis does (${message.slice(0, 80)})`,
    };
  } finally {
    client.disconnect();
  }
}

export async function probeMysql(
  port: number,
  user: string,
  password: string,
  host = '127.0.0.1',
): Promise<ProbeResult> {
  if (!(await portInUse(port, host))) return { state: 'down', detail: `nothing listens on ${host}:${port}` };
  let connection: mysql.Connection | undefined;
  try {
    connection = await mysql.createConnection({ host, port, user, password, connectTimeout: 3000 });
    const [rows] = await connection.query<mysql.RowDataPacket[]>('select version() as version');
    const [row] = rows;
    if (!row) throw new Error('select version() returned no row');
    return { state: 'healthy', version: String(row.version), detail: 'SELECT 1 as the app user works' };
  } catch (err) {
    const e = err as { code?: string; errno?: number; message?: string };
    if (e.code === 'ER_ACCESS_DENIED_ERROR' || e.errno === 1045 || e.errno === 1698) {
      return {
        state: 'auth-failed',
        detail: `a MySQL-compatible server answers but rejects user ${user} with the password in .env.tasks`,
      };
    }
    return {
      state: 'other-service',
      detail: `something answers on ${host}:${port} but not as MySQL does (${(e.code ?? e.message ?? 'error').slice(0, 80)})`,
    };
  } finally {
    await connection?.end().catch(() => {});
  }
}

/** "10.11.19-MariaDB-0+deb12u1" -> { flavour: 'mariadb', version: '10.11.19' } */
export function parseServerVersion(text: string): { flavour: 'mariadb' | 'mysql'; version: string } | undefined {
  const version = /(\d+\.\d+\.\d+)/.exec(text)?.[1];
  if (version === undefined) return undefined;
  return { flavour: /mariadb/i.test(text) ? 'mariadb' : 'mysql', version };
}
