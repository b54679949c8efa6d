// What lesson 01 reads from the environment, parsed once and checked at start-up:
// a bad value stops the server with a message naming the variable and its bounds,
// instead of surfacing later as a server listening somewhere unexpected.
import { defineOptions, wholeNumber } from '@tasks-lab/lab-kit';

export const SERVER_OPTIONS = defineOptions({
  /** The TCP port the API listens on; 0 lets the OS pick a free one (tests and drills do). @defaultValue 8000 */
  port: wholeNumber('PORT', 8000, { min: 0, max: 65535 }),
});
