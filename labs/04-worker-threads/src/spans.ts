// Measurements over the work spans the consumer threads report: did the threads
// really work at the same time, and how long did they hold the lock?
import type { WorkSpan } from './messages.ts';

/**
 * Milliseconds during which two different threads were both doing slow work (summed
 * over pairs of spans). Near 0 means the threads took turns: the slow work ran under
 * the lock, or only one thread worked.
 */
export function concurrentWorkMs(spans: readonly WorkSpan[]): number {
  let total = 0;
  for (const [i, a] of spans.entries()) {
    for (const b of spans.slice(i + 1)) {
      if (a.threadId === b.threadId) continue;
      total += Math.max(0, Math.min(a.endedAt, b.endedAt) - Math.max(a.startedAt, b.startedAt));
    }
  }
  return total;
}
