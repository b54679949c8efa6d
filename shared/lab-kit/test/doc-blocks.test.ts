// Generated blocks in a hand-written page: pure.
import { describe, expect, it } from 'vitest';
import { blockMarkers, missingBlocks, replaceBetween, rewriteBlocks } from '../src/doc-blocks.ts';

const page = [
  '# A page',
  '',
  'Prose a person wrote,  with  odd spacing and a trailing space. ',
  '<!-- t:begin one -->',
  'old table',
  '<!-- t:end one -->',
  'More prose.',
  '',
  '<!-- t:begin two -->',
  '<!-- t:end two -->',
  'The end, no newline',
].join('\n');

describe('rewriteBlocks', () => {
  it('When blocks are rewritten, Then only their bodies change: the prose around them is byte-identical', () => {
    const rewritten = rewriteBlocks(page, 't', { one: '| new | table |\n', two: 'line 1\nline 2' });
    expect(rewritten).toBe(
      page
        .replace('old table', '| new | table |')
        .replace('<!-- t:begin two -->\n', '<!-- t:begin two -->\nline 1\nline 2\n'),
    );
    const outside = (doc: string) => doc.replace(/<!-- t:begin (\w+) -->[\s\S]*?<!-- t:end \1 -->/g, '[$1]');
    expect(outside(rewritten)).toBe(outside(page));
  });

  it('When the page is rewritten twice with the same blocks, Then the second run changes nothing', () => {
    const once = rewriteBlocks(page, 't', { one: 'x' });
    expect(rewriteBlocks(once, 't', { one: 'x' })).toBe(once);
  });

  it('When a block has no markers, Then it is named and nothing is written', () => {
    expect(missingBlocks(page, 't', ['one', 'three'])).toEqual(['three']);
    expect(() => rewriteBlocks(page, 't', { one: 'x', three: 'y' })).toThrow(/<!-- t:begin three -->/);
  });
});

describe('replaceBetween', () => {
  it('When either marker is absent or the end comes first, Then there is nothing to replace', () => {
    const { begin, end } = blockMarkers('t', 'one');
    expect(replaceBetween('no markers', begin, end, 'x')).toBeUndefined();
    expect(replaceBetween(`${end}\n${begin}`, begin, end, 'x')).toBeUndefined();
    expect(replaceBetween(`a\n${begin}\nb\n${end}\nc`, begin, end, 'x')).toBe(`a\n${begin}\nx\n${end}\nc`);
  });
});
