import { OptionsError } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from '../src/message-contract.ts';
import { EARLIER_LABS_OPTIONS, MESSAGE_CHECK_OPTIONS } from '../src/options.ts';

describe('EARLIER_LABS_OPTIONS', () => {
  it('When nothing is set, Then each lab gets 3 minutes and no earlier run is reused', () => {
    expect(EARLIER_LABS_OPTIONS.read({ env: {} })).toEqual({ labTimeoutMs: 180_000, reuseRunsSince: 0 });
  });

  it('When EARLIER_LAB_TIMEOUT_MS is 0, Then it is refused naming the variable and its bounds', () => {
    expect(() => EARLIER_LABS_OPTIONS.read({ env: { EARLIER_LAB_TIMEOUT_MS: '0' } })).toThrow(OptionsError);
    expect(() => EARLIER_LABS_OPTIONS.read({ env: { EARLIER_LAB_TIMEOUT_MS: '0' } })).toThrow(
      'EARLIER_LAB_TIMEOUT_MS must be a whole number of milliseconds from 10000 to 1800000, got "0"',
    );
  });
});

describe('MESSAGE_CHECK_OPTIONS', () => {
  it("When nothing is set, Then the limit is the contract's 64 KiB", () => {
    expect(MESSAGE_CHECK_OPTIONS.read({ env: {} }).maxMessageBytes).toBe(MAX_MESSAGE_BYTES);
  });

  it('When MESSAGE_MAX_BYTES is not a number, Then it is refused naming the variable', () => {
    expect(() => MESSAGE_CHECK_OPTIONS.read({ env: { MESSAGE_MAX_BYTES: '64k' } })).toThrow(
      /MESSAGE_MAX_BYTES must be a whole number from 64 to 65536, got "64k"/,
    );
  });
});
