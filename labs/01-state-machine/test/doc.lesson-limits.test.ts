// The course asks the lesson to say plainly what it does not do yet. The doc is what a
// student reads, so the test reads it too: if an edit drops one of these sentences, the
// lesson no longer tells the student its limits.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The doc's text with line breaks folded, so a sentence may wrap anywhere. */
const doc = readFileSync(new URL('../../../docs/01-state-machine.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

describe('docs/01-state-machine.md', () => {
  it('When a student reads the lesson, Then it says nothing runs jobs and nothing persists them [test:doc-states-lesson-limits]', () => {
    for (const sentence of [
      'Nothing in this lesson runs a job.',
      'this lesson has neither execution nor persistence',
      'A process restart loses everything',
    ]) {
      expect(doc.includes(sentence), `the doc no longer says "${sentence}"`).toBe(true);
    }
  });
});
