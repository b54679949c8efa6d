import { describe, expect, it } from 'vitest';
import {
  choice,
  defineOptions,
  durationMs,
  name,
  OptionsError,
  readOnTopOf,
  wholeNumber,
  withShortTimings,
} from '../src/options.ts';

const OPTIONS = defineOptions({
  leaseMs: durationMs('LEASE_MS', 30_000),
  workers: wholeNumber('WORKERS', 2, { min: 1, max: 8 }),
  queueName: name('QUEUE', 'exports'),
  mode: choice('MODE', 'inline', ['inline', 'sandboxed']),
});

describe('defineOptions', () => {
  it('When nothing is set, Then the course values are used', () => {
    expect(OPTIONS.read({ env: {} })).toEqual({ leaseMs: 30_000, workers: 2, queueName: 'exports', mode: 'inline' });
  });

  it('When the environment sets values, Then they are parsed, and overrides win over them', () => {
    const values = OPTIONS.read({
      env: { LEASE_MS: '1500', WORKERS: '4', MODE: 'sandboxed' },
      overrides: { workers: 3 },
    });
    expect(values).toEqual({ leaseMs: 1500, workers: 3, queueName: 'exports', mode: 'sandboxed' });
  });

  it.each([
    ['0', /LEASE_MS must be a whole number of milliseconds from 1 to 86400000, got "0"/],
    ['-5', /LEASE_MS must be .* got "-5"/],
    ['soon', /LEASE_MS must be .* got "soon"/],
    ['1.5', /LEASE_MS must be .* got "1.5"/],
  ])('When LEASE_MS is %s, Then it is refused naming the variable and its bounds', (raw, message) => {
    expect(() => OPTIONS.read({ env: { LEASE_MS: raw } })).toThrow(message);
  });

  it('When several values are bad, Then all problems are reported at once', () => {
    try {
      OPTIONS.read({ env: { WORKERS: '9', QUEUE: 'a:b', MODE: 'thread' } });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(OptionsError);
      expect((err as OptionsError).problems).toHaveLength(3);
    }
  });

  it('When a bad override is passed in code, Then it is refused under its option name', () => {
    expect(() => OPTIONS.read({ env: {}, overrides: { leaseMs: 0 } })).toThrow(
      /leaseMs must be a whole number of milliseconds/,
    );
  });

  it('When values are turned into an environment, Then reading it back gives the same values', () => {
    const env = OPTIONS.toEnv({ leaseMs: 900, workers: 1 });
    expect(env).toEqual({ LEASE_MS: '900', WORKERS: '1' });
    expect(OPTIONS.read({ env })).toMatchObject({ leaseMs: 900, workers: 1 });
  });
});

describe('readOnTopOf', () => {
  const BELOW = defineOptions({ leaseMs: durationMs('LEASE_MS', 30_000), retryMs: durationMs('RETRY_MS', 10_000) });
  // The lab below's own rule: the retry must be shorter than the lease (a reader's cross-option check).
  const readBelow = (options: Parameters<typeof BELOW.read>[0] = {}) => {
    const values = BELOW.read(options);
    if (values.retryMs >= values.leaseMs) throw new OptionsError(['RETRY_MS must be below LEASE_MS']);
    return values;
  };
  const ON_TOP = defineOptions({ ...BELOW.specs, batch: wholeNumber('BATCH', 10, { min: 1, max: 100 }) });

  it("When a lab's options are read, Then its own values and the lab below's come back together", () => {
    expect(
      readOnTopOf(ON_TOP, BELOW, readBelow, { env: { LEASE_MS: '2000', BATCH: '5' }, overrides: { retryMs: 500 } }),
    ).toEqual({
      leaseMs: 2000,
      retryMs: 500,
      batch: 5,
    });
  });

  it('When the values break a rule of the lab below, Then reading the lab on top refuses them too', () => {
    expect(() => readOnTopOf(ON_TOP, BELOW, readBelow, { env: { LEASE_MS: '1000', RETRY_MS: '5000' } })).toThrow(
      /RETRY_MS must be below LEASE_MS/,
    );
  });

  it("When the lab below's reader changes its part (its course switch), Then the lab on top gets the changed part", () => {
    const courseBelow = () => BELOW.defaults();
    expect(readOnTopOf(ON_TOP, BELOW, courseBelow, { env: { LEASE_MS: '2000', BATCH: '7' } })).toEqual({
      leaseMs: 30_000,
      retryMs: 10_000,
      batch: 7,
    });
  });
});

describe('withShortTimings', () => {
  const TIMINGS = defineOptions({ leaseMs: durationMs('LEASE_MS', 30_000), retryMs: durationMs('RETRY_MS', 10_000) });
  const readShort = withShortTimings((options) => TIMINGS.read(options), { leaseMs: 1500, retryMs: 500 });

  it('When the short timings are read, Then they replace the defaults and the environment fills the rest', () => {
    expect(readShort({})).toEqual({ leaseMs: 1500, retryMs: 500 });
  });

  it("When the caller overrides one, Then the caller's value wins over the short one", () => {
    expect(readShort({}, { leaseMs: 4000 })).toEqual({ leaseMs: 4000, retryMs: 500 });
  });

  it('When the caller overrides one with a bad value, Then it is refused as any override is', () => {
    expect(() => readShort({}, { leaseMs: 0 })).toThrow(OptionsError);
  });
});
