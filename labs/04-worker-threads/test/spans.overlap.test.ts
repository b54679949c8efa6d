import { describe, expect, it } from 'vitest';
import type { WorkSpan } from '../src/messages.ts';
import { concurrentWorkMs } from '../src/spans.ts';

const span = (threadId: number, startedAt: number, endedAt: number): WorkSpan => ({
  threadId,
  id: 0,
  startedAt,
  endedAt,
  lockHeldMs: 0,
});

describe('concurrentWorkMs', () => {
  it('When two threads work side by side, Then their common time is counted', () => {
    expect(concurrentWorkMs([span(1, 0, 50), span(2, 10, 60), span(1, 50, 100), span(2, 60, 110)])).toBe(40 + 10 + 40);
  });

  it('When the threads take turns, Then nothing overlaps', () => {
    expect(concurrentWorkMs([span(1, 0, 50), span(2, 50, 100), span(1, 100, 150)])).toBe(0);
  });

  it('When spans of the same thread touch, Then they do not count as concurrent', () => {
    expect(concurrentWorkMs([span(1, 0, 50), span(1, 20, 70)])).toBe(0);
  });
});
