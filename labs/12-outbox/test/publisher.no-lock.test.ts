// The publisher holds no database lock while it waits for the broker: the claim is one
// short transaction, committed before the send; the confirmation is another. The test
// wraps the real send so that, WHILE the send is in flight, another connection tries to
// lock the event's row and its job's row with SKIP LOCKED: a locked row would be skipped.
import { randomBytes } from 'node:crypto';
import type { RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultPoints, waitFor } from '@tasks-lab/lab-kit';
import { openQueue, type ExportJobName } from '@tasks-lab/08-broker-worker';
import { withTransaction, type DeliveryOutcome, type WakeUpMessage } from '@tasks-lab/11-mysql-leases';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { readShortOutboxOptions } from '../src/options.ts';
import { readEvent, submitWithEvent } from '../src/outbox.ts';
import { PUBLISHER_FAULT_POINTS, startPublisher } from '../src/publisher.ts';
import { exportsAddress, sendWakeUp } from '../src/queue.ts';

let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase('nolock');
}, 60_000);
afterAll(() => db?.drop());

/** Locks the row if nobody holds it; `true` = it was free. Parameters: [id]. */
async function rowIsFree(table: 'export_outbox' | 'export_jobs', id: string): Promise<boolean> {
  return withTransaction(db.pool, async (tx) => {
    const [rows] = await tx.query<RowDataPacket[]>(`SELECT id FROM ${table} WHERE id = ? FOR UPDATE SKIP LOCKED`, [id]);
    return rows.length === 1;
  });
}

describe('the publisher and the database', () => {
  it('When an event is being sent to the broker, Then its row and its job row are not locked, and the claim is already committed [test:no-lock-during-send]', {
    timeout: 30_000,
  }, async () => {
    const timings = readShortOutboxOptions(process.env, { claimMs: 10_000 });
    const queueName = `exports-nolock-${randomBytes(4).toString('hex')}`;
    const submitted = await submitWithEvent(db.pool, [1], { queueName, deadlineMs: timings.deadlineMs });
    const seen: { eventFree: boolean; jobFree: boolean; claimVisible: boolean }[] = [];
    const publisher = await startPublisher({
      pool: db.pool,
      timings,
      listen: false,
      faults: faultPoints(PUBLISHER_FAULT_POINTS, {}),
      report: () => {},
      parts: {
        sendWakeUp: async (queue, event) => {
          // Another connection, during the send: READ COMMITTED sees only committed claims.
          const row = await readEvent(db.pool, event.eventId);
          seen.push({
            eventFree: await rowIsFree('export_outbox', event.eventId),
            jobFree: await rowIsFree('export_jobs', event.jobId),
            claimVisible: row?.claimToken === event.token,
          });
          return sendWakeUp(queue, event);
        },
      },
    });
    try {
      publisher.nudge();
      await waitFor(
        'the event to be confirmed',
        async () => (await readEvent(db.pool, submitted.eventId))?.sentAt != null,
        { timeoutMs: 15_000, intervalMs: 50 },
      );
    } finally {
      await publisher.close();
      const queue = await openQueue<WakeUpMessage, DeliveryOutcome, ExportJobName>(exportsAddress(queueName));
      await queue.obliterate({ force: true });
      await queue.close();
    }
    expect(seen).toEqual([{ eventFree: true, jobFree: true, claimVisible: true }]);
  });
});
