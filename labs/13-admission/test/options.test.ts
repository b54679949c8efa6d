// Lesson 13's options: the admission rules, validated once, the course's values by default.
import { describe, expect, it } from 'vitest';
import {
  describeTimings,
  readAdmissionOptions,
  readShortAdmissionOptions,
  SERVER_PROCESS_OPTIONS,
} from '../src/options.ts';

describe('admission options', () => {
  it("When nothing is set, Then the course's values apply: limit 100, fast <= 30 rows, Retry-After 5, no client quota", () => {
    expect(readAdmissionOptions({ env: {} })).toMatchObject({
      admissionLimit: 100,
      fastMaxRows: 30,
      retryAfterSeconds: 5,
      clientQuota: 0,
      admissionGate: 'counter',
      earlyRefusal: 'on',
      nudgeChannel: 'tasks-lab13:outbox-nudge',
    });
  });

  it('When a rule is out of bounds or not a number, Then it is refused with the variable and its bounds', () => {
    expect(() => readAdmissionOptions({ env: { ADMISSION_LIMIT: '0' } })).toThrow(
      /ADMISSION_LIMIT must be a whole number from 1 to/,
    );
    expect(() => readAdmissionOptions({ env: { CLIENT_QUOTA: '-1' } })).toThrow(/CLIENT_QUOTA/);
    expect(() => readAdmissionOptions({ env: { ADMISSION_GATE: 'mutex' } })).toThrow(/ADMISSION_GATE/);
    expect(() => readAdmissionOptions({ env: { ADMISSION_EARLY_REFUSAL: 'yes' } })).toThrow(/ADMISSION_EARLY_REFUSAL/);
    expect(() => readAdmissionOptions({ env: { FAST_MAX_ROWS: 'thirty' } })).toThrow(/FAST_MAX_ROWS/);
    // Lesson 12's and 11's checks still run.
    expect(() => readAdmissionOptions({ env: { OUTBOX_CLAIM_MS: '0' } })).toThrow(/OUTBOX_CLAIM_MS/);
  });

  it("When USE_COURSE_TIMINGS=1, Then the course's timings win over the short ones and the rules stay", () => {
    const values = readShortAdmissionOptions({ USE_COURSE_TIMINGS: '1', ADMISSION_LIMIT: '5' });
    expect(values).toMatchObject({ leaseMs: 30_000, claimMs: 30_000, admissionLimit: 5 });
    expect(describeTimings(values)).toMatch(
      /limit 5 \(counter gate, early refusal on, groups of up to 32\), client quota off, fast <= 30 rows/,
    );
  });

  it('When the server reads its settings, Then it no longer takes a queue name: the route picks the queue per job', () => {
    expect(Object.keys(SERVER_PROCESS_OPTIONS.specs)).not.toContain('queueName');
  });
});
