// The worker makes sure the lab's Redis and database run before it connects, and says so
// on screen, like every long-running process of lessons 08 to 10. Tried without touching
// the real services: the "something is in the way" case points the lab's Redis port at a
// stand-in server that answers like a web server, which the check must refuse by name.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startTsProcess } from '@tasks-lab/lab-kit';
import { startImpostorServer, type ImpostorServer } from '@tasks-lab/lab-kit/testing';
import { openQueue } from '@tasks-lab/08-broker-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKER_SCRIPT } from '../scripts/scenarios.ts';
import { retryQueueAddress } from '../src/jobs.ts';
import { RETRY_WORKER_OPTIONS } from '../src/options.ts';

const LAB_DIR = fileURLToPath(new URL('..', import.meta.url));

let impostor: ImpostorServer;
beforeAll(async () => {
  impostor = await startImpostorServer();
});
afterAll(() => impostor.close());

describe('the worker checks the services first', () => {
  it("When the worker starts, Then it says where the lab's Redis and database run before its ready line [test:worker-reports-services]", {
    timeout: 60_000,
  }, async () => {
    const queueName = `services-${randomUUID()}`;
    const worker = startTsProcess(WORKER_SCRIPT, { cwd: LAB_DIR, env: RETRY_WORKER_OPTIONS.toEnv({ queueName }) });
    try {
      await worker.waitForOutput(/ready on queue/, 45_000);
      expect(worker.output()).toMatch(
        /^\[infra\] (Redis on 127\.0\.0\.1:\d+ and the database on 127\.0\.0\.1:\d+ already running|starting )[\s\S]*^retry worker \d+ ready/m,
      );
    } finally {
      await worker.stop(5000);
      const queue = await openQueue(retryQueueAddress(queueName));
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it("When something that is not Redis holds the lab's Redis port, Then the worker stops at once naming the problem, instead of retrying for ever [test:worker-refuses-wrong-service]", {
    timeout: 90_000,
  }, async () => {
    const env = {
      ...RETRY_WORKER_OPTIONS.toEnv({ queueName: `services-${randomUUID()}` }),
      TASKS_LAB_REDIS_PORT: String(impostor.port),
    };
    const worker = startTsProcess(WORKER_SCRIPT, { cwd: LAB_DIR, env });
    const exit = await Promise.race([
      worker.exited,
      new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 60_000)),
    ]);
    if (exit === 'still running') worker.kill();

    expect(exit, `output so far:\n${worker.output()}`).toMatchObject({ code: 1 });
    expect(worker.output()).toMatch(new RegExp(`port ${impostor.port} is already in use by another program`));
    expect(worker.output()).not.toMatch(/^retry worker \d+ ready/m);
  });
});
