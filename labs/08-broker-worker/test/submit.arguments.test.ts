import { describe, expect, it } from 'vitest';
import { encodeMessage } from '@tasks-lab/07-choosing-executors';
import { DEFAULT_WAIT_SECONDS, oneProductSnapshot, parseWaitSeconds } from '../src/submit.ts';

describe('the submit CLI', () => {
  it('When no --timeout-s is given, Then it waits the course default of 15 s', () => {
    expect(parseWaitSeconds([])).toBe(DEFAULT_WAIT_SECONDS);
    expect(DEFAULT_WAIT_SECONDS).toBe(15);
  });

  it('When --timeout-s 2 is given, Then it waits 2 s', () => {
    expect(parseWaitSeconds(['--timeout-s', '2'])).toBe(2);
  });

  it('When --timeout-s is not a positive number, Then it says so', () => {
    expect(() => parseWaitSeconds(['--timeout-s', 'soon'])).toThrow(/positive number of seconds/);
    expect(() => parseWaitSeconds(['--timeout-s', '0'])).toThrow(/positive number of seconds/);
  });

  it('When it builds its snapshot, Then the message keeps lesson 07\'s contract with one product', () => {
    const message = oneProductSnapshot();
    expect(() => encodeMessage(message)).not.toThrow();
    expect(message.products).toHaveLength(1);
  });
});
