import { describe, expect, it } from 'vitest';
import { QUEUE_SETTINGS, settingsProblems, type QueueSettings } from '../src/queue-settings.ts';

const pay = QUEUE_SETTINGS.find((s) => s.queue === 'pay')!;
const order = QUEUE_SETTINGS.find((s) => s.queue === 'order')!;

describe('settingsProblems', () => {
  it('When the course table is checked, Then it has no problems', () => {
    expect(settingsProblems(QUEUE_SETTINGS)).toEqual([]);
  });

  it('When work that must not run twice allows a retry, Then the problem names the queue [test:no-rerun-rule-names-queue]', () => {
    const table: QueueSettings[] = [{ ...pay, attempts: 3 }];
    expect(settingsProblems(table)).toEqual([expect.stringMatching(/^pay: work that must not run twice/)]);
  });

  it('When an inline job blocks longer than half its lock, Then a longer lock or a sandbox is asked for', () => {
    const table: QueueSettings[] = [{ ...order, longestBlockMs: 20_000 }];
    expect(settingsProblems(table)).toEqual([
      expect.stringMatching(/lockDuration >= 40000 ms or a sandboxed processor/),
    ]);
  });

  it('When attempts is 0, Then it is rejected because BullMQ counts the first run', () => {
    expect(settingsProblems([{ ...order, attempts: 0 }])).toEqual([
      expect.stringMatching(/attempts counts the first run/),
    ]);
  });
});
