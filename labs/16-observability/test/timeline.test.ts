// The failure matrix's timelines (src/matrix/timeline.ts): pure, no services. A timeline must be
// a well-formed, self-contained SVG whatever the evidence holds: its four lanes, every text
// escaped, and something sensible for a row that observed nothing.
import { describe, expect, it } from 'vitest';
import type { TimelineInput } from '../src/matrix/timeline.ts';
import { leaseSegments, renderTimeline } from '../src/matrix/timeline.ts';

const TOKEN_A = '11111111-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const TOKEN_B = '22222222-bbbb-4bbb-8bbb-bbbbbbbbbbbb';

const evidence = (changes: Partial<TimelineInput> = {}): TimelineInput => ({
  case: 'worker-killed-holding-lease',
  title: 'A worker process is killed while it holds the lease',
  result: 'pass',
  started_at: '2026-01-01T10:00:00.000Z',
  finished_at: '2026-01-01T10:00:04.000Z',
  recovery_seconds: 2.41,
  recovery_window: { from_ms: 350, to_ms: 2760 },
  recovery_measure: 'kill -> succeeded',
  observed_states: [
    { at_ms: 100, status: 'queued', attempts: 0, lease_token: null },
    { at_ms: 300, status: 'running', attempts: 1, lease_token: TOKEN_A },
    { at_ms: 1900, status: 'queued', attempts: 1, lease_token: null },
    { at_ms: 2500, status: 'running', attempts: 2, lease_token: TOKEN_B },
    { at_ms: 2700, status: 'succeeded', attempts: 2, lease_token: TOKEN_B },
  ],
  deliveries: [
    { at_ms: 290, message_id: 'event-1', claimed: true, published: false, lease_token: TOKEN_A },
    { at_ms: 2690, message_id: 'event-2', claimed: true, published: true, lease_token: TOKEN_B },
  ],
  injected: [{ at_ms: 350, what: 'SIGKILL worker process 4242' }],
  ...changes,
});

/**
 * A small well-formedness check: every tag is closed in order, and no text holds a raw `<`
 * or an `&` that starts no entity (an XML parser would refuse the file).
 */
function xmlProblems(svg: string): string[] {
  const problems: string[] = [];
  const stack: string[] = [];
  const body = svg.replace(/^<\?xml[^>]*\?>\s*/, '');
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (const match of body.matchAll(tag)) {
    const between = body.slice(last, match.index);
    if (between.includes('<') || between.includes('>')) problems.push(`a stray < or > before ${match[0].slice(0, 40)}`);
    if (/&(?!(amp|lt|gt|quot|apos);)/.test(between))
      problems.push(`an unescaped & in ${JSON.stringify(between.slice(0, 60))}`);
    const [, closing, name, , selfClosing] = match;
    if (closing) {
      if (stack.pop() !== name) problems.push(`</${name}> closes the wrong element`);
    } else if (!selfClosing) stack.push(name!);
    last = (match.index ?? 0) + match[0].length;
  }
  if (body.slice(last).trim() !== '') problems.push('text after the root element');
  if (stack.length > 0) problems.push(`unclosed: ${stack.join(', ')}`);
  return problems;
}

describe('renderTimeline', () => {
  it('When a row has states, deliveries, tokens and a fault, Then the SVG is well-formed and has its four lanes and an axis in seconds [test:timeline-well-formed]', () => {
    const svg = renderTimeline(evidence());
    expect(xmlProblems(svg)).toEqual([]);
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(svg).toContain('<svg xmlns="http://www.w3.org/2000/svg"');
    for (const lane of ['state', 'deliveries', 'lease tokens', 'injected']) expect(svg).toContain(`>${lane}</text>`);
    expect(svg).toContain('running a1');
    expect(svg).toContain('event-2 published');
    expect(svg).toContain('token 11111111');
    expect(svg).toContain('token 22222222');
    expect(svg).toContain('SIGKILL worker process 4242');
    expect(svg).toContain('seconds since the row started');
    expect(svg).toContain('recovered in 2.41 s');
    expect(svg).toContain('recovery 2.41 s (kill -&gt; succeeded)');
    // Self-contained: nothing fetched, nothing run.
    expect(svg).not.toMatch(/<script|href=|@import|url\(/);
  });

  it('When the evidence holds & and < in its texts, Then they are escaped and the SVG stays well-formed [test:timeline-escapes-text]', () => {
    const svg = renderTimeline(
      evidence({
        title: 'Tom & Jerry <b>bold</b>',
        injected: [{ at_ms: 10, what: 'action: "<script>alert(1)</script>" & more' }],
        deliveries: [
          { at_ms: 20, message_id: 'a<b&c', claimed: false, published: false, lease_token: null, error: 'boom <&>' },
        ],
      }),
    );
    expect(xmlProblems(svg)).toEqual([]);
    expect(svg).toContain('Tom &amp; Jerry &lt;b&gt;bold&lt;/b&gt;');
    expect(svg).toContain('&lt;script&gt;');
    expect(svg).not.toContain('<script>');
    expect(svg).not.toContain('<b>');
  });

  it('When a row observed nothing (a refusal, a row not run), Then the timeline still renders its lanes, saying so [test:timeline-empty]', () => {
    const svg = renderTimeline(
      evidence({
        observed_states: [],
        deliveries: [],
        injected: [],
        recovery_seconds: null,
        recovery_window: null,
        result: 'not_run',
        finished_at: '2026-01-01T10:00:00.000Z',
      }),
    );
    expect(xmlProblems(svg)).toEqual([]);
    expect(svg).toContain('no state sampled');
    expect(svg).toContain('no delivery seen');
    expect(svg).toContain('no lease held');
    expect(svg).toContain('nothing injected');
    expect(svg).toContain('no recovery time');
  });

  it('When the start times are not valid dates, Then the timeline falls back on the events and renders', () => {
    const svg = renderTimeline(evidence({ started_at: 'garbage', finished_at: 'garbage' }));
    expect(xmlProblems(svg)).toEqual([]);
    expect(svg).not.toContain('NaN');
  });
});

describe('leaseSegments', () => {
  it('When consecutive samples hold one token, Then they make one segment, and a new token a new one', () => {
    const states = evidence().observed_states;
    expect(leaseSegments(states, 4000)).toEqual([
      { token: TOKEN_A, from: 300, to: 1900 },
      { token: TOKEN_B, from: 2500, to: 4000 },
    ]);
  });
});
