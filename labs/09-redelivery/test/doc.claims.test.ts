// The course's acceptance item: what the lesson says about recovery must not promise
// exactly-once execution or that nothing is ever lost. The doc is read as a student
// reads it; every sentence that names exactly-once must deny it.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const DOC = new URL('../../../docs/09-redelivery.md', import.meta.url);

/** The doc's prose as sentences (code blocks and the generated coverage table left out: they are not claims). */
async function sentences(): Promise<string[]> {
  const text = (await readFile(DOC, 'utf8'))
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/<!-- coverage:begin[\s\S]*?<!-- coverage:end -->/g, ' ')
    .replace(/\s+/g, ' ');
  return text.split(/(?<=[.;!?])\s+/);
}

const NEGATION = /\b(never|not|no|nobody|neither|nor|cannot|without)\b/i;

describe('docs/09-redelivery.md', () => {
  it('When it mentions exactly-once or losing nothing, Then it denies it, and it says at-least-once [test:doc-claims-at-least-once]', async () => {
    const all = await sentences();
    const exactlyOnce = all.filter((s) => /exactly[- ]once/i.test(s));
    const claimsNoLoss = all.filter(
      (s) =>
        /\bnever (gets? )?lost\b|\bnothing is (ever )?lost\b|\bguarantees? (that )?nothing\b/i.test(s) &&
        !NEGATION.test(s.replace(/\bnever (gets? )?lost\b/i, '')),
    );

    expect(exactlyOnce.length).toBeGreaterThan(0);
    expect(exactlyOnce.filter((s) => !NEGATION.test(s))).toEqual([]);
    expect(claimsNoLoss).toEqual([]);
    expect(all.some((s) => /at-least-once/i.test(s))).toBe(true);
  });
});
