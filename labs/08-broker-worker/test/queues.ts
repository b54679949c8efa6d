// Test helpers: a unique queue name per test run, and removing it afterwards.
import { randomUUID } from 'node:crypto';
import { exportsAddress } from '../src/broker.ts';
import { openQueue } from '../src/queue-layer.ts';

export const uniqueQueueName = (label: string) => `exports-${label}-${randomUUID().slice(0, 8)}`;

/** Deletes every key of the test queues (force: even with jobs still active). */
export async function obliterateQueues(names: readonly string[]): Promise<void> {
  for (const name of names) {
    const queue = await openQueue<unknown, unknown, string>(exportsAddress(name));
    try {
      await queue.obliterate({ force: true });
    } finally {
      await queue.close();
    }
  }
}
