// Lesson 14's slot names. A slot is "this period's run": at most one job may have it.
//
//   executionSlot(when)   the course's label, the UTC minute in which the signal was
//                         HANDLED: shop-export:20260101T1000. A signal redelivered a
//                         second later, across a minute boundary, gets another slot.
//   plannedSlot(...)      the lab's: the time the scheduler PLANNED the run for, which
//                         BullMQ keeps on the run's job. Redelivered or late, the run keeps
//                         its planned time, so it keeps its slot.
//
// Both are in UTC: a local time zone would rename the slots whenever the zone (or its
// daylight saving) changes.
import { InvalidSlotKeyError, InvalidTimeError, TimeZoneRequiredError } from './errors.ts';

/** The course's prefix of every export slot. */
export const SLOT_PREFIX = 'shop-export';

/** Printable ASCII, 1 to 160 characters (the column is VARCHAR(160) ASCII). */
const SLOT_KEY = /^[\x21-\x7e]{1,160}$/;

export function checkSlotKey(slotKey: string): string {
  if (typeof slotKey !== 'string' || !SLOT_KEY.test(slotKey)) throw new InvalidSlotKeyError();
  return slotKey;
}

/** An ISO 8601 date and time WITH its zone: "Z" or "+hh:mm" / "-hh:mm". */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const ISO_WITHOUT_ZONE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?$/;

/**
 * The instant a client's text names. A Date is an instant already; a string must carry its
 * zone: "2026-01-01T10:00:59" is refused (TimeZoneRequiredError), never read as local time.
 */
export function instantOf(when: Date | string): Date {
  if (when instanceof Date) {
    if (Number.isNaN(when.getTime())) throw new InvalidTimeError(String(when));
    return when;
  }
  if (ISO_WITHOUT_ZONE.test(when)) throw new TimeZoneRequiredError(when);
  const instant = new Date(when);
  if (!ISO_WITH_ZONE.test(when) || Number.isNaN(instant.getTime()) || !isCalendarDate(when))
    throw new InvalidTimeError(when);
  return instant;
}

/** "2026-02-30" is not a day (Date would roll it over to March 2nd): the day must exist in its month. */
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(year, month - 1, day));
  return probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** 2026-01-01T10:00:59Z -> "20260101T1000": the UTC minute. */
function utcMinute(instant: Date): string {
  return `${instant.getUTCFullYear()}${pad(instant.getUTCMonth() + 1)}${pad(instant.getUTCDate())}T${pad(instant.getUTCHours())}${pad(instant.getUTCMinutes())}`;
}

/** The course's slot: the UTC minute of `when` (the time the signal was handled). */
export function executionSlot(when: Date | string): string {
  return `${SLOT_PREFIX}:${utcMinute(instantOf(when))}`;
}

/**
 * The lab's slot: the schedule and the PLANNED time of the run. With a whole-minute
 * interval it reads like the course's ("shop-export:export-each-minute:20260101T1000");
 * a shorter interval (verify's 1 s) needs the seconds and milliseconds too.
 */
export function plannedSlot(scheduleId: string, plannedAt: Date, everyMs: number): string {
  const minute = utcMinute(plannedAt);
  const label =
    everyMs % 60_000 === 0
      ? minute
      : `${minute}${pad(plannedAt.getUTCSeconds())}.${pad(plannedAt.getUTCMilliseconds(), 3)}`;
  return checkSlotKey(`${SLOT_PREFIX}:${scheduleId}:${label}`);
}
