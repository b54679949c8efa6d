import { describe, expect, it } from 'vitest';
import { findLesson, LESSONS } from '../src/lessons.ts';

describe('findLesson', () => {
  it('When given 3, 03 or 03-background-tasks, Then it finds lesson 03', () => {
    for (const arg of ['3', '03', '03-background-tasks']) expect(findLesson(arg)?.number).toBe('03');
  });

  it('When given something that is not a lesson number, Then it finds nothing', () => {
    for (const arg of ['17', '00', 'abc', '../etc', '']) expect(findLesson(arg)).toBeUndefined();
  });

  it('The course has sixteen lessons numbered 01 to 16', () => {
    expect(LESSONS.map((l) => l.number)).toEqual(Array.from({ length: 16 }, (_, i) => String(i + 1).padStart(2, '0')));
  });
});
