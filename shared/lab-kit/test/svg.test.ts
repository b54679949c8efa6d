// The shared SVG helpers: pure.
import { describe, expect, it } from 'vitest';
import { escapeXml } from '../src/svg.ts';

describe('escapeXml', () => {
  it('When text holds markup and quotes, Then each of & < > " \' is escaped and the rest kept', () => {
    expect(escapeXml(`<a href="x">Tom & 'Jerry'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; &apos;Jerry&apos;&lt;/a&gt;',
    );
    expect(escapeXml('p95 = 1.2 s')).toBe('p95 = 1.2 s');
  });
});
