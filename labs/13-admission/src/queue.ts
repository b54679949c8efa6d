// Where lesson 13's wake-ups go: lesson 12's message and sends, under lab 13's own key
// prefix, on two queues now: exports.fast and exports.bulk. The publisher sends each
// event to the queue its row names (chosen at admission); one worker consumes each queue.
import type { QueueAddress } from '@tasks-lab/08-broker-worker';
import { QUEUE_PREFIX, ROUTES, type Route, type RouteQueue } from './options.ts';

export { QUEUE_PREFIX };

/** One of lesson 13's queues under `prefix` (the lab's, unless BULLMQ_PREFIX names another). */
export const exportsAddress = (queueName: RouteQueue, prefix: string = QUEUE_PREFIX): QueueAddress => ({ prefix, queueName });

/** `fast` / `bulk` (the worker's command-line word) to its queue; anything else is refused with the choices. */
export function routeNamed(word: string | undefined): { route: Route; queueName: RouteQueue } {
  if (word === 'fast' || word === 'bulk') return { route: word, queueName: ROUTES[word] };
  throw new Error(`say which queue this worker consumes: \`fast\` (${ROUTES.fast}) or \`bulk\` (${ROUTES.bulk}); got ${JSON.stringify(word ?? '')}`);
}
