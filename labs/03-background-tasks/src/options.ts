// What the lesson 03 server reads from the environment, parsed once and checked at
// start-up: a zero, negative or non-numeric timing stops the server with a message
// naming the variable and its bounds (a grace of 0 would cancel every export at once;
// "3s" would silently become NaN). The defaults are the course's values.
//
//   PORT=8000 EXPORT_WORK_MS=1000 SHUTDOWN_GRACE_MS=3000 CANCEL_CLEANUP_MS=1000
import { SERVER_OPTIONS } from '@tasks-lab/01-state-machine';
import { defineOptions, durationMs, MINUTE } from '@tasks-lab/lab-kit';

export const BACKGROUND_SERVER_OPTIONS = defineOptions({
  port: SERVER_OPTIONS.specs.port,
  /** How long the simulated short export takes. @defaultValue 1000 */
  exportWorkMs: durationMs('EXPORT_WORK_MS', 1000, { max: 10 * MINUTE }),
  /** On shutdown, how long running exports may go on before they are cancelled. @defaultValue 3000 */
  shutdownGraceMs: durationMs('SHUTDOWN_GRACE_MS', 3000, { max: 10 * MINUTE }),
  /** After cancelling, how long shutdown waits for the tasks' clean-up (their `finally`). @defaultValue 1000 */
  cancelCleanupMs: durationMs('CANCEL_CLEANUP_MS', 1000, { max: MINUTE }),
});

export type BackgroundServerSettings = ReturnType<typeof BACKGROUND_SERVER_OPTIONS.read>;

/** The course's values. */
export const BACKGROUND_DEFAULTS: Readonly<BackgroundServerSettings> = Object.freeze(
  BACKGROUND_SERVER_OPTIONS.defaults(),
);
