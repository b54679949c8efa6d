// The nudge: a Redis pub/sub message that tells an idle publisher "an event was just
// committed, look now". It is a hint, never the message itself: the event is already in
// the outbox table, so a nudge that is lost (Redis down, nobody subscribed yet) costs at
// most one poll interval, and a nudge with nothing behind it costs one empty claim.
//
//   nudgeChannel       the channel's default name (OUTBOX_NUDGE_CHANNEL overrides it)
//   openNudgeClient    the submit side's Redis client, fail-fast
//   publishNudge       the submit side: one PUBLISH, after the commit, bounded in time
//   subscribeToNudges  the publisher's side: a subscriber connection that wakes its loop
import { Redis, type RedisOptions } from 'ioredis';
import { redisOptions } from '@tasks-lab/infra';
import { CodedError, errorMessage, formatDuration } from '@tasks-lab/lab-kit';
import { bounded } from './bounded.ts';
import { nudgeChannel } from './options.ts';

export { nudgeChannel };

// ---------------------------------------------------------------------------------
// The submit side

/**
 * The Redis client that publishes nudges. Fail fast: with Redis down a PUBLISH is refused
 * at once (no offline queue holding it, and the request, for ever); the event is already
 * committed, so the publisher's polling sends it anyway.
 */
export function openNudgeClient(options: RedisOptions = redisOptions()): Redis {
  const client = new Redis({ ...options, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  client.on('error', () => {}); // reported by the failed PUBLISH; an unhandled 'error' would end the process
  return client;
}

/**
 * Tells the publishers that an event was committed: one PUBLISH on the nudge channel.
 * Call it AFTER the commit (a publisher woken earlier would find nothing). A nudge is a
 * hint: if it is lost, the event is still in the table and the next poll sends it, so
 * the caller reports a failure and goes on. Bounded by `timeoutMs`; resolves to how many
 * publishers heard it.
 */
export async function publishNudge(
  redis: Redis,
  options: { channel?: string; timeoutMs?: number } = {},
): Promise<number> {
  const timeoutMs = options.timeoutMs ?? 1000;
  return bounded(
    redis.publish(options.channel ?? nudgeChannel, 'event-committed'),
    timeoutMs,
    () => new CodedError('nudge-timeout', `the nudge got no answer from Redis within ${formatDuration(timeoutMs)}`),
  );
}

// ---------------------------------------------------------------------------------
// The publisher's side

/**
 * A connection of its own in subscriber mode (Redis allows nothing else on it). ioredis
 * reconnects and subscribes again by itself after an outage; errors are reported once
 * per distinct message, not once per reconnect attempt.
 */
export function subscribeToNudges(
  connection: RedisOptions,
  channel: string,
  onNudge: () => void,
  report: (line: string) => void,
): { close(): Promise<void> } {
  const subscriber = new Redis({ ...connection, maxRetriesPerRequest: null });
  let lastProblem = '';
  subscriber.on('error', (err: Error) => {
    const problem = errorMessage(err);
    if (problem !== lastProblem) report(`nudge subscription: ${problem} (polling continues; reconnecting)`);
    lastProblem = problem;
  });
  subscriber.on('ready', () => {
    lastProblem = '';
  });
  subscriber.on('message', (from: string) => {
    if (from === channel) onNudge();
  });
  subscriber
    .subscribe(channel)
    .catch((err: unknown) => report(`nudge subscription failed: ${errorMessage(err)} (polling continues)`));
  return {
    close: async () => {
      subscriber.disconnect();
    },
  };
}
