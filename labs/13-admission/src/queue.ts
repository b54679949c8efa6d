// Where lesson 13's wake-ups go: lesson 12's message and sends, under lab 13's own key
// prefix, on two queues now: exports.fast and exports.bulk. The publisher sends each
// event to the queue its row names (chosen at admission); one worker consumes each queue.
import { randomBytes } from 'node:crypto';
import type { Resources } from '@tasks-lab/lab-kit';
import { openQueue, type QueueAddress } from '@tasks-lab/08-broker-worker';
import { BULK_QUEUE, FAST_QUEUE, QUEUE_PREFIX, ROUTES, type Route, type RouteQueue } from './options.ts';

export { QUEUE_PREFIX };

/** One of lesson 13's queues under `prefix` (the lab's, unless BULLMQ_PREFIX names another). */
export const exportsAddress = (queueName: RouteQueue, prefix: string = QUEUE_PREFIX): QueueAddress => ({
  prefix,
  queueName,
});

/** `fast` / `bulk` (the worker's command-line word) to its queue; anything else is refused with the choices. */
export function routeNamed(word: string | undefined): { route: Route; queueName: RouteQueue } {
  if (word === 'fast' || word === 'bulk') return { route: word, queueName: ROUTES[word] };
  throw new Error(
    `say which queue this worker consumes: \`fast\` (${ROUTES.fast}) or \`bulk\` (${ROUTES.bulk}); got ${JSON.stringify(word ?? '')}`,
  );
}

/**
 * A BullMQ prefix of one experiment's own (`tasks-lab13-x<hex>`, or `<base>-x<hex>`), for its
 * workers and publisher: verify never takes, nor drops, the wake-ups of a student's workers
 * on the lab's prefix. Both queues (their schedulers with them) are obliterated when `res`
 * closes; register it before starting any process, so it runs after they are gone.
 */
export function scratchQueuePrefix(res: Resources, base: string = QUEUE_PREFIX): string {
  const prefix = `${base}-x${randomBytes(4).toString('hex')}`;
  res.defer(async () => {
    for (const queueName of [FAST_QUEUE, BULK_QUEUE] as const) {
      const queue = await openQueue(exportsAddress(queueName, prefix));
      try {
        await queue.obliterate({ force: true });
      } finally {
        await queue.close();
      }
    }
  });
  return prefix;
}
