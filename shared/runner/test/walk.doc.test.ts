// A lesson doc read as a walk: every block a student could take for a step is marked, and a marker
// that cannot be run as written is a problem before anything runs.
import { describe, expect, it } from 'vitest';
import { parseWalk } from '../src/walk/doc.ts';
import { parseMarkerLine } from '../src/walk/markers.ts';

const doc = (...lines: string[]) => lines.join('\n');
const fence = (lang: string, ...body: string[]) => [`\`\`\`${lang}`, ...body, '```'];

describe('parseMarkerLine', () => {
  it('When a marker names a terminal and options, Then they are read, durations in milliseconds', () => {
    expect(parseMarkerLine('<!-- walk start A ready="worker 1 ready" timeout=90s -->')).toEqual({
      kind: 'start',
      terminal: 'A',
      ready: 'worker 1 ready',
      timeoutMs: 90_000,
    });
    expect(parseMarkerLine('<!-- walk expect B vary="25703=pid; 1.2 s=duration" within=2min -->')).toEqual({
      kind: 'expect',
      terminal: 'B',
      vary: [
        { sample: '25703', type: 'pid' },
        { sample: '1.2 s', type: 'duration' },
      ],
      withinMs: 120_000,
    });
    expect(parseMarkerLine('<!-- walk run A exit=1 -->')).toEqual({
      kind: 'run',
      terminal: 'A',
      exit: 1,
      timeoutMs: undefined,
    });
  });

  it('When a marker is malformed, Then it says how to write it', () => {
    expect(() => parseMarkerLine('<!-- walk run -->')).toThrow(/needs a terminal/);
    expect(() => parseMarkerLine('<!-- walk start A -->')).toThrow(/needs the text of its ready line/);
    expect(() => parseMarkerLine('<!-- walk run A ready="x" -->')).toThrow(/takes no option "ready"/);
    expect(() => parseMarkerLine('<!-- walk skip: -->')).toThrow(/needs its reason/);
    expect(() => parseMarkerLine('<!-- walk jump A -->')).toThrow(/unknown walk marker/);
    expect(parseMarkerLine('<!-- coverage:begin -->')).toBeUndefined();
  });
});

describe('parseWalk', () => {
  it('When shell and output blocks carry markers, Then they become steps in order, and code excerpts need none', () => {
    const walk = parseWalk(
      doc(
        '<!-- walk folder labs/x -->',
        'Work in `cd labs/x`.',
        '<!-- walk run A -->',
        ...fence('sh', 'pnpm a', 'pnpm b \\', '  --flag'),
        '<!-- walk expect A -->',
        '',
        ...fence('', 'all done'),
        ...fence('ts', 'const x = 1;'),
        '<!-- walk ctrl-c A -->',
      ),
    );
    expect(walk.problems).toEqual([]);
    expect(walk.folder).toBe('labs/x');
    expect(walk.steps.map((s) => s.kind)).toEqual(['run', 'expect', 'ctrl-c']);
    expect(walk.steps[0]).toMatchObject({ commands: ['pnpm a', 'pnpm b \\\n  --flag'] });
  });

  it('When a shell, output or SQL block has no marker, Then it is a problem naming its line', () => {
    const walk = parseWalk(
      doc('text', ...fence('sh', 'pnpm worker'), ...fence('', 'out'), ...fence('sql', 'SELECT 1;')),
    );
    expect(walk.problems).toEqual([
      expect.stringMatching(/^line 2: this ```sh block has no walk marker/),
      expect.stringMatching(/^line 5: /),
      expect.stringMatching(/^line 8: this ```sql/),
    ]);
  });

  it('When a walked block holds a line that is only a comment, Then it is a problem: that line stands for a step with no command', () => {
    const walk = parseWalk(
      doc(
        '<!-- walk run A -->',
        ...fence('sh', 'curl -s localhost:8000/exports', '# the same command again', 'curl -s localhost:8000/x'),
      ),
    );
    expect(walk.problems).toEqual([expect.stringMatching(/only a comment \("# the same command again"\)/)]);
  });

  it('When a start block holds two commands, or prose stands between a marker and its block, Then each is a problem', () => {
    expect(parseWalk(doc('<!-- walk start A ready="r" -->', ...fence('sh', 'pnpm a', 'pnpm b'))).problems[0]).toMatch(
      /one command/,
    );
    expect(parseWalk(doc('<!-- walk run A -->', 'Some prose.', ...fence('sh', 'pnpm a'))).problems[0]).toMatch(
      /not followed by a block/,
    );
  });

  it('When the walk runs in a folder the doc never tells the student to cd into, Then it is a problem', () => {
    expect(parseWalk(doc('<!-- walk folder labs/x -->')).problems).toEqual([
      expect.stringMatching(/never tells the student to `cd labs\/x`/),
    ]);
  });

  it('When an expected block is only values, Then it is a problem: it would accept anything of that shape', () => {
    expect(
      parseWalk(doc('<!-- walk expect A -->', ...fence('', '8e91c190-59be-4456-9cd5-d8e7f8290318'))).problems[0],
    ).toMatch(/at least one literal line/);
  });
});
