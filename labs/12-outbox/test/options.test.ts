// Lesson 12's options: the publisher's timings, validated once, with the course switch.
import { describe, expect, it } from 'vitest';
import {
  COURSE_TIMINGS,
  describeTimings,
  readOutboxOptions,
  readShortOutboxOptions,
  SHORT_TIMINGS,
} from '../src/options.ts';

describe('outbox options', () => {
  it("When nothing is set, Then the course's values apply: a 30 s claim", () => {
    expect(readOutboxOptions({ env: {} })).toMatchObject({
      claimMs: 30_000,
      leaseMs: 30_000,
      nudgeChannel: 'tasks-lab12:outbox-nudge',
    });
  });

  it('When a timing is zero, negative or not a number, Then it is refused with the variable and its bounds', () => {
    expect(() => readOutboxOptions({ env: { OUTBOX_CLAIM_MS: '0' } })).toThrow(
      /OUTBOX_CLAIM_MS must be a whole number of milliseconds from 100 to/,
    );
    expect(() => readOutboxOptions({ env: { OUTBOX_POLL_MS: '-5' } })).toThrow(/OUTBOX_POLL_MS/);
    expect(() => readOutboxOptions({ env: { OUTBOX_SEND_TIMEOUT_MS: 'soon' } })).toThrow(/OUTBOX_SEND_TIMEOUT_MS/);
    expect(() => readOutboxOptions({ env: { LEASE_MS: '0' } })).toThrow(/LEASE_MS/);
  });

  it("When USE_COURSE_TIMINGS=1, Then the course's timings win over the short ones", () => {
    const values = readShortOutboxOptions({ USE_COURSE_TIMINGS: '1' });
    expect(values).toMatchObject({ claimMs: COURSE_TIMINGS.claimMs, pollMs: COURSE_TIMINGS.pollMs, leaseMs: 30_000 });
    expect(describeTimings(values)).toMatch(/course's publisher timings/);
  });

  it('When verify reads the short timings, Then the claim is 1.5 s and the observation says so', () => {
    const values = readShortOutboxOptions({});
    expect(values.claimMs).toBe(SHORT_TIMINGS.claimMs);
    expect(describeTimings(values)).toMatch(/claim 1\.5 s/);
  });
});
