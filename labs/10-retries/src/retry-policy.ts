// The retry policy of lesson 10, as pure functions: how long to wait before the
// next try (capped exponential backoff with full jitter), and whether a try or a
// retry still fits inside the deadline the producer set. No Redis here, so the
// rules can be tested with an injected random source and a fixed clock.
import { createHash } from 'node:crypto';

export interface RetryPolicy {
  /** The ceiling of the first retry's wait; it doubles for every retry after that. */
  backoffBaseMs: number;
  /** No wait ever exceeds this, however many retries came before. */
  backoffCapMs: number;
  /** The least time one more try needs; a retry that cannot get it is not scheduled. */
  minWorkMs: number;
}

/** The course's numbers: waits of up to 1 s, 2 s, 4 s, then 8 s at most; 0.1 s for one more try. */
export const RETRY_POLICY_DEFAULTS: RetryPolicy = { backoffBaseMs: 1000, backoffCapMs: 8000, minWorkMs: 100 };

/** BullMQ counts every run: the first one plus three retries. (Celery's max_retries=3 counts only retries.) */
export const EXPORT_ATTEMPTS = 4;

/** The producer gives each export 10 minutes from submission, for all of its tries together. */
export const DEFAULT_EXPORT_DEADLINE_MS = 10 * 60 * 1000;

export const DEADLINE_EXCEEDED = 'deadline exceeded';
export const INSUFFICIENT_RETRY_BUDGET = 'insufficient retry budget';

/** A number in [0, 1), like Math.random; tests inject their own. */
export type RandomSource = () => number;

/** Where the worker's jitter comes from: the random number in [0, 1) for retry number `retry`. */
export type JitterSource = (retry: number) => number;

/** What production uses: a fresh draw every time, so jobs that failed together come back apart. */
export const randomJitter: JitterSource = () => Math.random();

/**
 * For drills and tests only (RETRY_JITTER_SEED): the draw for retry n is fixed by the seed
 * and n (the first 48 bits of sha256("<seed>:<n>") as a fraction), so a check knows every
 * wait in advance and can hold the gaps it measures against them. Never in production:
 * with one seed, every job waits the same time and they all return together, the very
 * stampede jitter is there to prevent.
 */
export function seededJitter(seed: string): JitterSource {
  return (retry) => createHash('sha256').update(`${seed}:${retry}`).digest().readUIntBE(0, 6) / 2 ** 48;
}

/**
 * The largest wait allowed before retry number `retry` (1 = the first retry):
 * base * 2^(retry-1), but never more than the cap.
 */
export function backoffCeilingMs(retry: number, policy: Pick<RetryPolicy, 'backoffBaseMs' | 'backoffCapMs'>): number {
  if (!Number.isInteger(retry) || retry < 1) throw new RangeError(`retry must be a whole number from 1, got ${retry}`);
  // 2 ** 1100 is Infinity, and Math.min(cap, Infinity) is still the cap: no overflow to worry about.
  return Math.min(policy.backoffCapMs, policy.backoffBaseMs * 2 ** (retry - 1));
}

/**
 * "Full jitter": a uniform wait anywhere between 0 and the ceiling. Spreading the waits
 * keeps a hundred jobs that failed together from coming back in the same instant.
 */
export function fullJitterDelayMs(
  retry: number,
  policy: Pick<RetryPolicy, 'backoffBaseMs' | 'backoffCapMs'>,
  random: RandomSource = Math.random,
): number {
  return Math.floor(random() * backoffCeilingMs(retry, policy));
}

/** Before any work: an export whose deadline has passed must not touch the source at all. */
export function deadlineProblem(nowMs: number, deadlineAt: number): typeof DEADLINE_EXCEEDED | undefined {
  return deadlineAt - nowMs <= 0 ? DEADLINE_EXCEEDED : undefined;
}

export type RetryPlan = { retry: true; delayMs: number } | { retry: false; reason: typeof INSUFFICIENT_RETRY_BUDGET };

export interface PlanRetryInput {
  nowMs: number;
  deadlineAt: number;
  /** Which retry this would be: 1 after the first run failed. */
  retry: number;
  policy: RetryPolicy;
  random?: RandomSource;
}

/**
 * Before scheduling a retry: draw the wait, then ask whether the wait plus the least
 * time a try needs still ends before the deadline. Retries left over are not a
 * promise; the deadline is shared by all tries and never renewed.
 */
export function planRetry({ nowMs, deadlineAt, retry, policy, random }: PlanRetryInput): RetryPlan {
  const delayMs = fullJitterDelayMs(retry, policy, random);
  if (nowMs + delayMs + policy.minWorkMs >= deadlineAt) return { retry: false, reason: INSUFFICIENT_RETRY_BUDGET };
  return { retry: true, delayMs };
}
