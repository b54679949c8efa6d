// Slot names, without a database: the course's label (the UTC minute a time falls in), the
// lab's planned-time key, and the rule every slot key follows.
import { describe, expect, it } from 'vitest';
import { checkSlotKey, executionSlot, instantOf, plannedSlot } from '../src/slot-keys.ts';

const refusedAs = (code: string) => expect.objectContaining({ code, status: 400 });

describe('executionSlot: the course label', () => {
  it('When a signal is handled at 10:00:59Z and another at 10:01:01Z, Then they get two slots, one per UTC minute [test:execution-slot-minute-boundary]', () => {
    expect(executionSlot('2026-01-01T10:00:59Z')).toBe('shop-export:20260101T1000');
    expect(executionSlot('2026-01-01T10:01:01Z')).toBe('shop-export:20260101T1001');
    expect(executionSlot(new Date(Date.UTC(2026, 0, 1, 10, 0, 59, 999)))).toBe('shop-export:20260101T1000');
  });

  it('When the time says another zone (+02:00), Then the slot is the UTC minute of that instant [test:execution-slot-utc-offset]', () => {
    expect(executionSlot('2026-01-01T12:00:30+02:00')).toBe('shop-export:20260101T1000');
    expect(executionSlot('2026-01-01T01:30:00-09:00')).toBe('shop-export:20260101T1030');
    // Across midnight: 00:30 in +02:00 is the day before in UTC.
    expect(executionSlot('2026-01-01T00:30:00+02:00')).toBe('shop-export:20251231T2230');
  });

  it('When a time has no zone, Then it is refused (400 time-zone-required), never read as local time [test:execution-slot-zone-required]', () => {
    for (const zoneless of ['2026-01-01T10:00:59', '2026-01-01T10:00', '2026-01-01T10:00:59.500', '2026-01-01']) {
      expect(() => executionSlot(zoneless), zoneless).toThrow(refusedAs('time-zone-required'));
    }
  });

  it('When the text is not an ISO 8601 time, Then it is refused (400 invalid-time) [test:execution-slot-invalid-time]', () => {
    for (const bad of [
      '',
      'yesterday',
      '2026-13-01T10:00Z',
      '2026-01-01T25:00Z',
      '2026-01-01T10:00:60Z',
      '2026-01-01 10:00:59Z',
      '2026-01-01T10:00:59+0200',
      '2026-01-01T10:00:59GMT',
      '1767261659000',
      '2026-02-30T10:00Z',
      '2025-02-29T10:00:00Z',
    ]) {
      expect(() => executionSlot(bad), JSON.stringify(bad)).toThrow(refusedAs('invalid-time'));
    }
    expect(() => instantOf(new Date(Number.NaN))).toThrow(refusedAs('invalid-time'));
  });
});

describe('plannedSlot: the lab key', () => {
  it('When the interval is whole minutes (60 s), Then the key is the schedule and the planned minute [test:planned-slot-minute-label]', () => {
    const planned = new Date('2026-01-01T10:00:00.000Z');
    expect(plannedSlot('export-each-minute', planned, 60_000)).toBe('shop-export:export-each-minute:20260101T1000');
    // Two handlings of one run keep its planned time, so its key: the clock plays no part.
    expect(plannedSlot('export-each-minute', new Date('2026-01-01T10:00:59.999Z'), 60_000)).toBe(
      'shop-export:export-each-minute:20260101T1000',
    );
  });

  it('When the interval is shorter than a minute (1 s), Then the key carries the seconds and milliseconds, so each run has its own [test:planned-slot-second-label]', () => {
    expect(plannedSlot('export-each-minute', new Date('2026-01-01T10:00:07.250Z'), 1000)).toBe(
      'shop-export:export-each-minute:20260101T100007.250',
    );
    expect(plannedSlot('export-each-minute', new Date('2026-01-01T10:00:08.250Z'), 1000)).toBe(
      'shop-export:export-each-minute:20260101T100008.250',
    );
  });
});

describe('checkSlotKey', () => {
  it('When a key is 1 to 160 printable ASCII characters, Then it is kept as sent [test:slot-key-bounds]', () => {
    for (const good of ['a', 'drill:unique-slot-01', '~!#', 'k'.repeat(160)]) expect(checkSlotKey(good)).toBe(good);
  });

  it('When a key is empty, 161 characters long, or holds a space, a control character or a non-ASCII letter, Then it is refused (400 invalid-slot-key) [test:slot-key-refused]', () => {
    for (const bad of [
      '',
      'k'.repeat(161),
      'a b',
      'tab\there',
      'nl\n',
      'caf\u00e9',
      'shop-export:2026\u00a0',
      '\u007f',
    ]) {
      expect(() => checkSlotKey(bad), JSON.stringify(bad)).toThrow(refusedAs('invalid-slot-key'));
    }
  });
});
