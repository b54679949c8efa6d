// W3C traceparent parsing and spans (src/trace.ts): pure, no services.
import { describe, expect, it } from 'vitest';
import {
  childSpan,
  continueOrStart,
  formatTraceParent,
  newTrace,
  parseTraceParent,
  TRACEPARENT_LENGTH,
} from '../src/trace.ts';

const VALID = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('traceparent', () => {
  it('When a valid version-00 header is parsed and formatted again, Then it round-trips [test:traceparent-round-trip]', () => {
    const parsed = parseTraceParent(VALID);
    expect(parsed).toEqual({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', flags: '01' });
    expect(formatTraceParent(parsed!)).toBe(VALID);
  });

  it.each([
    ['upper case', VALID.toUpperCase()],
    ['all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['all-zero span id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['too long', `${VALID}-extra`],
    ['too short', VALID.slice(0, 54)],
    ['not hex', '00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01'],
    ['a number', 42],
    ['nothing', undefined],
  ])(
    'When the header is %s, Then it is not a trace parent (and nothing throws) [test:traceparent-invalid-ignored]',
    (_what, value) => {
      expect(parseTraceParent(value)).toBeUndefined();
    },
  );

  it('When a child span is made, Then it keeps the trace id and flags and has a new span id [test:child-span-same-trace]', () => {
    const parent = parseTraceParent(VALID)!;
    const child = childSpan(parent);
    expect(child.traceId).toBe(parent.traceId);
    expect(child.flags).toBe(parent.flags);
    expect(child.spanId).not.toBe(parent.spanId);
    expect(formatTraceParent(child)).toHaveLength(TRACEPARENT_LENGTH);
  });

  it('When thousands of ids are made (the random pool refilled many times), Then every id is new and every traceparent valid [test:trace-ids-unique]', () => {
    const traces = Array.from({ length: 3000 }, () => newTrace());
    const spans = traces.map((trace) => childSpan(trace));
    const ids = [...traces.flatMap((t) => [t.traceId, t.spanId]), ...spans.map((s) => s.spanId)];
    expect(new Set(ids).size).toBe(ids.length);
    for (const span of spans) expect(parseTraceParent(formatTraceParent(span))).toEqual(span);
  });

  it('When the incoming header is valid, Then the request continues its trace; when not, Then a new valid trace starts', () => {
    expect(continueOrStart(VALID).traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    const started = continueOrStart('garbage');
    expect(parseTraceParent(formatTraceParent(started))).toEqual(started);
    expect(newTrace().traceId).not.toBe(newTrace().traceId);
  });
});
