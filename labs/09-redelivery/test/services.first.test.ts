// Every long-running process of this lab makes sure the lab's Redis runs before it
// connects, and says so on screen, as lesson 08's worker does. Tried without touching
// the real services: the "down" case points the lab's Redis port at a stand-in server
// that answers like a web server, which ensureInfra must refuse by name. A process that
// skipped it would retry that port for ever instead of exiting.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTsProcess } from '@tasks-lab/lab-kit';
import { startImpostorServer, type ImpostorServer } from '@tasks-lab/lab-kit/testing';
import { openQueue } from '@tasks-lab/08-broker-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CPU_WORKER_SCRIPT, EXPORT_WORKER_SCRIPT } from '../scripts/scenarios.ts';
import { CPU_WORKER_OPTIONS, WORKER_OPTIONS } from '../src/options.ts';
import { exportsAddress } from '../src/queue.ts';

let impostor: ImpostorServer;
beforeAll(async () => {
  impostor = await startImpostorServer();
});
afterAll(() => impostor.close());

describe('long-running processes check the services first', () => {
  it("When the export worker starts, Then it says where the lab's Redis runs before its ready line [test:worker-reports-services]", {
    timeout: 60_000,
  }, async () => {
    const queueName = `services-${randomUUID()}`;
    const artifactDir = await mkdtemp(join(tmpdir(), 'tasks-lab09-services-'));
    const worker = startTsProcess(EXPORT_WORKER_SCRIPT, { env: WORKER_OPTIONS.toEnv({ queueName, artifactDir }) });
    try {
      await worker.waitForOutput(/^worker \d+ ready/m, 45_000);
      expect(worker.output()).toMatch(
        /^\[infra\] (Redis on 127\.0\.0\.1:\d+ already running|starting Redis)[\s\S]*^worker \d+ ready/m,
      );
    } finally {
      await worker.stop(5000);
      await rm(artifactDir, { recursive: true, force: true });
      const queue = await openQueue(exportsAddress(queueName));
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it.each([
    ['the export worker', EXPORT_WORKER_SCRIPT, WORKER_OPTIONS.toEnv({ queueName: `services-${randomUUID()}` })],
    ['the CPU worker', CPU_WORKER_SCRIPT, CPU_WORKER_OPTIONS.toEnv({ queueName: `services-${randomUUID()}` })],
  ])(
    "When something that is not Redis holds the lab's Redis port, Then %s stops at once naming the problem, instead of retrying for ever [test:worker-refuses-wrong-service]",
    { timeout: 90_000 },
    async (_label, script, env) => {
      const worker = startTsProcess(script, { env: { ...env, TASKS_LAB_REDIS_PORT: String(impostor.port) } });
      const exit = await Promise.race([
        worker.exited,
        new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 60_000)),
      ]);
      if (exit === 'still running') worker.kill();

      expect(exit, `output so far:\n${worker.output()}`).toMatchObject({ code: 1 });
      expect(worker.output()).toMatch(new RegExp(`port ${impostor.port} is already in use by another program`));
      expect(worker.output()).not.toMatch(/^(cpu )?worker \d+ ready/m);
    },
  );
});
