// The worker as a real process: it prints a ready line naming its timings, and SIGTERM
// closes it cleanly (BullMQ worker, then the pool) with exit code 0.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchProcess } from '@tasks-lab/lab-kit';
import { openQueue, type ExportJobName } from '@tasks-lab/08-broker-worker';
import { freshDatabase, type FreshDatabase } from '../src/scratch-databases.ts';
import { LEASE_OPTIONS, SHORT_TIMINGS } from '../src/options.ts';
import { WORKER_PROCESS_OPTIONS } from '../src/options.ts';
import { exportsAddress, type DeliveryOutcome, type WakeUpMessage } from '../src/queue.ts';

const WORKER = fileURLToPath(new URL('../src/worker.ts', import.meta.url));
let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase('workerproc');
}, 60_000);
afterAll(() => db?.drop());

describe('the worker process', () => {
  it('When it starts and then gets SIGTERM, Then its ready line names the timings and it exits 0 [test:worker-ready-and-clean-exit]', async () => {
    const queueName = `exports-proc-${randomBytes(4).toString('hex')}`;
    const worker = await launchProcess(WORKER, {
      ready: /export worker \d+ ready/,
      env: { ...LEASE_OPTIONS.toEnv(SHORT_TIMINGS), ...WORKER_PROCESS_OPTIONS.toEnv({ queueName, database: db.name }) },
    });
    try {
      expect(worker.output()).toMatch(/lease 1\.5 s, backoff 500 ms, deadline 1 min, 3 attempts; faults: none/);
      const exit = await worker.stop(10_000);
      expect(exit).toEqual({ code: 0, signal: null });
    } finally {
      await worker.kill();
      const queue = await openQueue<WakeUpMessage, DeliveryOutcome, ExportJobName>(exportsAddress(queueName));
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
