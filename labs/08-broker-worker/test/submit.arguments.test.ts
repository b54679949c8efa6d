import { describe, expect, it } from 'vitest';
import { encodeMessage } from '@tasks-lab/07-choosing-executors';
import { DEFAULT_WAIT_SECONDS, oneProductSnapshot } from '../src/submit.ts';

describe('the submit CLI', () => {
  it('When it waits by default, Then it waits the course default of 15 s', () => {
    expect(DEFAULT_WAIT_SECONDS).toBe(15);
  });

  it("When it builds its snapshot, Then the message keeps lesson 07's contract with one product", () => {
    const message = oneProductSnapshot();
    expect(() => encodeMessage(message)).not.toThrow();
    expect(message.products).toHaveLength(1);
  });
});
