// A check that runs out of time must not leave anything behind: runCheck aborts its
// signal, the check's scope closes what it holds (a worker process, a Redis
// connection), the hung await fails, and the next check starts on a clean queue.
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { defineCheck, findCheck, isAlive, launchProcess, pass, runCheck, withResources } from '@tasks-lab/lab-kit';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { LAB_DIR } from '../src/artifacts.ts';
import { brokerConnection } from '../src/broker.ts';
import { buildChecks } from '../scripts/checks.ts';
import { WORKER_READY } from '../scripts/scenarios.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const queueName = uniqueQueueName('timeout');
const admin = new Redis(brokerConnection());
afterAll(async () => {
  admin.disconnect();
  await obliterateQueues([queueName]);
});

/** Closes an ioredis client and resolves once it reports 'end' (its socket is gone). */
async function closeClient(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  const ended = once(client, 'end');
  client.disconnect();
  await ended;
}

const clientNames = async () => String(await admin.client('LIST'));

describe('a check that hangs', () => {
  it('When it outlasts its time limit while holding a worker process and a Redis connection, Then both are gone and the next check passes', {
    timeout: 90_000,
  }, async () => {
    const connectionName = `lab08-hanging-check-${randomUUID().slice(0, 8)}`;
    const held: { workerPid?: number; client?: Redis; listedWhileHeld?: boolean } = {};
    const hanging = defineCheck({
      id: 'hangs-holding-a-worker',
      name: 'a check whose answer never comes',
      timeoutMs: 8_000,
      scenario: (signal) =>
        withResources(signal, async (res) => {
          const worker = await launchProcess('src/worker.ts', {
            cwd: LAB_DIR,
            env: { EXPORTS_QUEUE: queueName },
            ready: WORKER_READY,
            resources: res,
          });
          held.workerPid = worker.pid;
          const client = res.add(new Redis({ ...brokerConnection(), connectionName }), closeClient);
          held.client = client;
          await client.ping(); // connected, and named (ioredis sends CLIENT SETNAME first)
          held.listedWhileHeld = (await clientNames()).includes(`name=${connectionName} `);
          // Waits on a list nobody pushes to: only the scope closing the client ends it.
          await client.blpop(`${queueName}:never`, 0);
          return 'answered';
        }),
      judge: () => pass('it answered'),
    });

    const result = await runCheck(hanging, { cleanupGraceMs: 10_000 });

    expect(result.ok).toBe(false);
    expect(result.observed).toBe('no answer within 8000 ms; its resources were released');
    // It really held both when the time ran out (so their absence below means something).
    expect(held.workerPid).toBeGreaterThan(0);
    expect(held.listedWhileHeld).toBe(true);
    expect(isAlive(held.workerPid ?? -1)).toBe(false);
    expect(held.client?.status).toBe('end');
    expect(await clientNames()).not.toContain(`name=${connectionName} `);

    const next = await runCheck(findCheck(buildChecks({ queueName }), 'worker-registers-export-job'));
    expect(next.ok, next.observed).toBe(true);
  });
});
