// `pnpm publisher` as a real OS process: it starts with the timings it was given, sends an
// event after a nudge from another process, and stops cleanly on SIGTERM.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { launchProcess, waitFor } from '@tasks-lab/lab-kit';
import { brokerConnection, openQueue, type ExportJobName } from '@tasks-lab/08-broker-worker';
import type { DeliveryOutcome, WakeUpMessage } from '@tasks-lab/11-mysql-leases';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { OUTBOX_OPTIONS, PUBLISHER_PROCESS_OPTIONS, SHORT_TIMINGS } from '../src/options.ts';
import { readEvent, submitWithEvent } from '../src/outbox.ts';
import { publishNudge } from '../src/nudge.ts';
import { exportsAddress } from '../src/queue.ts';

const PUBLISHER = fileURLToPath(new URL('../src/publisher-process.ts', import.meta.url));
let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase('pubproc');
}, 60_000);
afterAll(() => db?.drop());

describe('the publisher process', () => {
  it('When an event is committed and nudged, Then the process sends and confirms it, and SIGTERM stops it with exit 0', async () => {
    const queueName = `pubproc-${randomBytes(3).toString('hex')}`;
    const queue = await openQueue<WakeUpMessage, DeliveryOutcome, ExportJobName>(exportsAddress(queueName));
    const redis = new Redis(brokerConnection());
    // A long poll: only the nudge can make the send quick.
    const publisher = await launchProcess(PUBLISHER, {
      ready: /outbox publisher \d+ ready/,
      env: {
        ...OUTBOX_OPTIONS.toEnv({ ...SHORT_TIMINGS, pollMs: 30_000 }),
        ...PUBLISHER_PROCESS_OPTIONS.toEnv({ database: db.name }),
      },
    });
    try {
      expect(publisher.output()).toMatch(/claim 1\.5 s, poll 30 s, .*send bound 1 s; faults: none/);
      await waitFor(
        'the publisher to subscribe',
        async () => Number((await redis.pubsub('NUMSUB', 'tasks-lab12:outbox-nudge'))[1]) >= 1,
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      const { eventId } = await submitWithEvent(db.pool, [1], { queueName });
      await publishNudge(redis);
      await publisher.waitForOutput(new RegExp(`sent event ${eventId} .*: confirmed`), 5000);
      expect((await readEvent(db.pool, eventId))!.sentAt).not.toBeNull();
      expect((await queue.getJob(eventId))?.id).toBe(eventId);
      expect(await publisher.stop(10_000)).toEqual({ code: 0, signal: null });
    } finally {
      await publisher.kill().catch(() => {});
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      redis.disconnect();
    }
  }, 60_000);
});
