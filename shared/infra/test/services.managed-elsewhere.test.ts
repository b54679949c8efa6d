// A process given credentials other than .env.tasks (TASKS_LAB_ENV_FILE, as the soak passes to
// the processes it supervises) must never start the labs' own Redis or database in place of a
// service that is down: it says so and leaves the port alone. (The soak found this: a worker
// restarted while the soak's private Redis was crashed started a native Redis on its port.)
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareCredentials } from '../src/credentials.ts';
import { freePort } from '../src/private-redis.ts';
import { ensureInfra, InfraError } from '../src/services.ts';

const saved: Record<string, string | undefined> = {};
let dir: string;
beforeEach(() => {
  for (const key of ['TASKS_LAB_ENV_FILE', 'TASKS_LAB_REDIS_PORT', 'TASKS_LAB_MYSQL_PORT'])
    saved[key] = process.env[key];
  dir = mkdtempSync(join(tmpdir(), 'managed-elsewhere-'));
});
afterEach(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  rmSync(dir, { recursive: true, force: true });
});

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

describe('ensureInfra with credentials of services run elsewhere', () => {
  it('When such a service does not answer, Then it throws not-answering and starts nothing on its port', async () => {
    const file = join(dir, 'credentials.env');
    prepareCredentials(file);
    const port = await freePort();
    process.env.TASKS_LAB_ENV_FILE = file;
    process.env.TASKS_LAB_REDIS_PORT = String(port);
    const error = await ensureInfra({ services: ['redis'] }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(InfraError);
    expect((error as InfraError).problems).toEqual([
      expect.objectContaining({ service: 'redis', code: 'not-answering' }),
    ]);
    expect(await answers(port)).toBe(false);
  });
});
