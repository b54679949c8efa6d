// The deep dive's per-queue settings table, as data a check can read. Celery's three
// knobs (prefetch, late ack, visibility timeout) become BullMQ's: concurrency (there is
// no prefetch), lockDuration + stalledInterval (how soon a lost job comes back),
// maxStalledCount (how often it may come back) and attempts (retries after an error).

export interface QueueSettings {
  queue: 'sms' | 'order' | 'report' | 'pay';
  work: string;
  concurrency: number;
  lockDurationMs: number;
  maxStalledCount: number;
  /** BullMQ counts the first run: attempts 3 = 1 run + 2 retries. */
  attempts: number;
  /** Can the work run twice without harm (idempotent, or harmless to repeat)? */
  repeatable: boolean;
  /** Where the processor runs: inline (the worker's event loop) or sandboxed (its own child process). */
  runsIn: 'inline' | 'sandboxed';
  /** The longest time one job may keep the worker's event loop busy without yielding. */
  longestBlockMs: number;
  why: string;
}

export const QUEUE_SETTINGS: readonly QueueSettings[] = [
  {
    queue: 'sms',
    work: 'short notification, a repeat or a loss is tolerable',
    concurrency: 20,
    lockDurationMs: 30_000,
    maxStalledCount: 1,
    attempts: 3,
    repeatable: true,
    runsIn: 'inline',
    longestBlockMs: 20,
    why: 'throughput first: many cheap I/O-bound jobs at once; a rare duplicate text is acceptable',
  },
  {
    queue: 'order',
    work: 'stock deduction, must not be lost, guarded by a dedupe row keyed by order id',
    concurrency: 4,
    lockDurationMs: 30_000,
    maxStalledCount: 1,
    attempts: 3,
    repeatable: true,
    runsIn: 'inline',
    longestBlockMs: 50,
    why: 'a lost worker must lead to a re-run (one stall allowed); the dedupe row makes the re-run harmless',
  },
  {
    queue: 'report',
    work: 'long CPU-heavy report, minutes',
    concurrency: 1,
    lockDurationMs: 120_000,
    maxStalledCount: 1,
    attempts: 2,
    repeatable: true,
    runsIn: 'sandboxed',
    longestBlockMs: 300_000,
    why: 'the CPU work runs in a sandboxed child so the parent keeps renewing the lock; a long lock only delays recovery after a crash',
  },
  {
    queue: 'pay',
    work: 'payment callback, money moves',
    concurrency: 2,
    lockDurationMs: 30_000,
    maxStalledCount: 0,
    attempts: 1,
    repeatable: false,
    runsIn: 'inline',
    longestBlockMs: 50,
    why: 'never re-run automatically: a lost worker fails the job and reconciliation with the provider (by its idempotency key) decides',
  },
];

/** The rules the table must keep; each problem names the queue and the rule. */
export function settingsProblems(table: readonly QueueSettings[]): string[] {
  const problems: string[] = [];
  for (const s of table) {
    if (s.concurrency < 1) problems.push(`${s.queue}: concurrency must be at least 1`);
    if (s.attempts < 1) problems.push(`${s.queue}: attempts counts the first run, so it is at least 1`);
    if (!s.repeatable && (s.maxStalledCount !== 0 || s.attempts !== 1)) {
      problems.push(
        `${s.queue}: work that must not run twice needs maxStalledCount 0 and attempts 1 (has ${s.maxStalledCount} and ${s.attempts})`,
      );
    }
    // An inline processor that blocks the loop for longer than half the lock risks a second, concurrent run.
    if (s.runsIn === 'inline' && s.longestBlockMs * 2 > s.lockDurationMs) {
      problems.push(
        `${s.queue}: an inline job blocking ${s.longestBlockMs} ms needs lockDuration >= ${s.longestBlockMs * 2} ms or a sandboxed processor`,
      );
    }
  }
  return problems;
}
