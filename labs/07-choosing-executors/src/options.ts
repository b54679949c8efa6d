// Lesson 07's options, read once at start-up, with the course's values as defaults.
// A bad value is refused with a message naming the variable and its bounds.
import { defineOptions, durationMs, MINUTE, wholeNumber } from '@tasks-lab/lab-kit';
import { MAX_MESSAGE_BYTES } from './message-contract.ts';

/** `pnpm earlier` and the first verify check: re-running labs 01-06. */
export const EARLIER_LABS_OPTIONS = defineOptions({
  /** A lab whose verify runs longer than this is killed and recorded as timed out. @defaultValue 3 * MINUTE */
  labTimeoutMs: durationMs('EARLIER_LAB_TIMEOUT_MS', 3 * MINUTE, { min: 10_000, max: 30 * MINUTE }),
  /**
   * Epoch ms, set by the root `pnpm test` (0: not set). A lab whose verify already wrote
   * its .lab-result.json at or after this time is not run a second time.
   * @defaultValue 0
   */
  reuseRunsSince: wholeNumber('TASKS_LAB_RUN_STARTED', 0, { min: 0, max: 8_640_000_000_000_000 }),
});
export type EarlierLabsSettings = ReturnType<typeof EARLIER_LABS_OPTIONS.defaults>;

/** `pnpm check:message`: the size limit it checks against. */
export const MESSAGE_CHECK_OPTIONS = defineOptions({
  /**
   * Messages must be smaller than this many bytes. The contract's limit is the most a
   * message may ever be; lower it to see where a sample stops fitting.
   * @defaultValue MAX_MESSAGE_BYTES
   */
  maxMessageBytes: wholeNumber('MESSAGE_MAX_BYTES', MAX_MESSAGE_BYTES, { min: 64, max: MAX_MESSAGE_BYTES }),
});
export type MessageCheckSettings = ReturnType<typeof MESSAGE_CHECK_OPTIONS.defaults>;
