// The course asks the lesson never to present work inside the API process as a durable
// queue. The doc is what a student reads, so the test reads it too: if an edit drops
// these sentences, the lesson no longer says where its guarantee ends.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The doc's text with line breaks folded, so a sentence may wrap anywhere. */
const doc = readFileSync(new URL('../../../docs/03-background-tasks.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

describe('docs/03-background-tasks.md', () => {
  it('When a student reads the lesson, Then it says in-process background work is not a durable queue [test:doc-says-not-a-queue]', () => {
    for (const sentence of [
      'Background work inside the API process is not a queue.',
      'Nothing in this lab recovers the job, and nothing should pretend to.',
      "A user's export must not rely on in-process background work alone",
    ]) {
      expect(doc.includes(sentence), `the doc no longer says "${sentence}"`).toBe(true);
    }
  });
});
