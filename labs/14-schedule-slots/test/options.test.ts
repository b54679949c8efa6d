// Lesson 14's options: the schedule's, validated once, the course's values by default.
import { describe, expect, it } from 'vitest';
import { describeTimings, readScheduleOptions, readShortScheduleOptions } from '../src/options.ts';

describe('schedule options', () => {
  it("When nothing is set, Then the course's values apply: every 60 s, the first 100 products, slots from the planned time", () => {
    expect(readScheduleOptions({ env: {} })).toMatchObject({
      scheduleEveryMs: 60_000,
      scheduleProducts: 100,
      scheduleId: 'export-each-minute',
      slotKeyFrom: 'planned',
      admissionLimit: 100,
    });
  });

  it('When a setting is out of bounds or unknown, Then it is refused with the variable', () => {
    expect(() => readScheduleOptions({ env: { SCHEDULE_EVERY_MS: '0' } })).toThrow(/SCHEDULE_EVERY_MS/);
    expect(() => readScheduleOptions({ env: { SLOT_KEY_FROM: 'clock' } })).toThrow(/SLOT_KEY_FROM/);
    expect(() => readScheduleOptions({ env: { SCHEDULE_ID: 'a:b' } })).toThrow(/SCHEDULE_ID/);
    expect(() => readScheduleOptions({ env: { ADMISSION_LIMIT: '0' } })).toThrow(/ADMISSION_LIMIT/);
  });

  it('When verify reads the short timings, Then the schedule runs every second; USE_COURSE_TIMINGS=1 puts the minute back', () => {
    expect(readShortScheduleOptions({}).scheduleEveryMs).toBe(1000);
    const course = readShortScheduleOptions({ USE_COURSE_TIMINGS: '1' });
    expect(course.scheduleEveryMs).toBe(60_000);
    expect(describeTimings(course)).toMatch(/schedule export-each-minute every 1 min, slot from the planned time/);
  });
});
