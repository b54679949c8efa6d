// Lesson 14's refusals of a client's input: lesson 01's AppError, so the one error
// middleware answers them with a 400 and JSON. Both are checked before anything is written.
import { AppError } from '@tasks-lab/01-state-machine';

/** A time without a zone ("2026-01-01T10:00:59") names a different instant in every zone: refused. */
export class TimeZoneRequiredError extends AppError {
  constructor(text: string) {
    super(
      'time-zone-required',
      `A time must say its zone ("Z" or "+hh:mm"), got ${JSON.stringify(text.slice(0, 40))}: a slot is named in UTC`,
      400,
    );
  }
}

/** A time that is not an ISO 8601 date and time. */
export class InvalidTimeError extends AppError {
  constructor(text: string) {
    super('invalid-time', `Not an ISO 8601 date and time: ${JSON.stringify(text.slice(0, 40))}`, 400);
  }
}

/** A slot key that is empty, longer than 160 characters, or not printable ASCII. */
export class InvalidSlotKeyError extends AppError {
  constructor() {
    super('invalid-slot-key', 'A slot key is 1 to 160 printable ASCII characters', 400);
  }
}
