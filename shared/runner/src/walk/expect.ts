// Does what a command printed show what the doc says it will? An expected block is a run of lines
// that must appear, in order and next to each other, in the output; a line `...` stands for any
// number of lines in between, and output before the first line or after the last is allowed. Lines
// are compared whole, with spaces at either end ignored; values that vary are typed placeholders.
import { type Bindings, isGap, lineMatcher } from './placeholders.ts';

export type BlockMatch =
  | { ok: true /** Index of the output line after the last matched one. */; end: number; bindings: Bindings }
  | {
      ok: false /** The block's first line that could not be matched, with the output line in its place. */;
      expectedIndex: number;
      expected: string;
      seen: string | undefined;
      why?: string;
    };

/** Output as lines: colours gone, a carriage return's overwrite applied, trailing spaces dropped. */
export function outputLines(text: string): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences start with ESC
  const plain = text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/\x1b\][^\x07]*\x07/g, '');
  return plain.split('\n').map((line) => {
    const withoutCr = line.endsWith('\r') ? line.slice(0, -1) : line;
    return withoutCr.slice(withoutCr.lastIndexOf('\r') + 1).trimEnd();
  });
}

/** The block's lines without blank lines at its ends, split into segments at each `...`. */
function segmentsOf(expected: readonly string[]): Array<Array<{ text: string; index: number }>> {
  const lines = expected.map((text, index) => ({ text, index }));
  while (lines.length > 0 && lines[0]!.text.trim() === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1]!.text.trim() === '') lines.pop();
  const segments: Array<Array<{ text: string; index: number }>> = [[]];
  for (const line of lines) {
    if (isGap(line.text)) segments.push([]);
    else segments[segments.length - 1]!.push(line);
  }
  return segments.filter((segment) => segment.length > 0);
}

interface Progress {
  matched: number;
  expectedIndex: number;
  expected: string;
  seenAt: number;
  why?: string;
}

/** Matches `expected` against `actual` (from `from` on), binding placeholders into a copy of `bindings`. */
export function matchBlock(
  expected: readonly string[],
  actual: readonly string[],
  bindings: Bindings,
  from = 0,
): BlockMatch {
  const segments = segmentsOf(expected);
  const first = segments[0]?.[0];
  let best: Progress = {
    matched: -1,
    expectedIndex: first?.index ?? 0,
    expected: first?.text.trim() ?? '',
    seenAt: from,
  };
  const note = (progress: Progress) => {
    if (progress.matched > best.matched) best = progress;
  };

  const search = (
    s: number,
    start: number,
    bound: Bindings,
    matchedBefore: number,
  ): { end: number; bindings: Bindings } | undefined => {
    const segment = segments[s];
    if (!segment) return { end: start, bindings: bound };
    for (let p = start; p + segment.length <= actual.length; p++) {
      const tentative = bound.clone();
      let k = 0;
      let why: string | undefined;
      for (; k < segment.length; k++) {
        why = lineMatches(segment[k]!.text, actual[p + k]!, tentative);
        if (why !== undefined) break;
      }
      if (k === segment.length) {
        const rest = search(s + 1, p + segment.length, tentative, matchedBefore + segment.length);
        if (rest) return rest;
      } else {
        note({
          matched: matchedBefore + k,
          expectedIndex: segment[k]!.index,
          expected: segment[k]!.text.trim(),
          seenAt: p + k,
          why: why || undefined,
        });
      }
    }
    if (segment.length > 0 && start + segment.length > actual.length) {
      note({
        matched: matchedBefore,
        expectedIndex: segment[0]!.index,
        expected: segment[0]!.text.trim(),
        seenAt: actual.length,
      });
    }
    return undefined;
  };

  const found = search(0, from, bindings, 0);
  if (found) return { ok: true, ...found };
  return {
    ok: false,
    expectedIndex: best.expectedIndex,
    expected: best.expected,
    seen: actual[best.seenAt],
    why: best.why,
  };
}

/** undefined when `actual` is the expected line; '' when the text differs; a reason when only a binding fails. */
function lineMatches(expectedLine: string, actualLine: string, bindings: Bindings): string | undefined {
  const { regex, groups } = lineMatcher(expectedLine, bindings);
  const m = regex.exec(actualLine.trim());
  if (!m) return '';
  for (let g = 0; g < groups.length; g++) {
    const problem = bindings.bind(groups[g]!.sample, groups[g]!.type, m[g + 1]!);
    if (problem) return problem;
  }
  return undefined;
}
