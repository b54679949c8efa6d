// The flame graphs of `pnpm bench:profile` (scripts/flame-graph.ts): from V8's .cpuprofile to
// folded stacks to one SVG. Pure: the profiles are built here in V8's shape.
import { describe, expect, it } from 'vitest';
import {
  type CpuProfile,
  flameTree,
  foldStacks,
  frameLabel,
  hottestFrames,
  renderFlameGraph,
} from '../scripts/flame-graph.ts';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

/** (root) -> main -> { parse (6 samples), query (3) }, main itself 1, and 50 idle samples. */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 5] },
    {
      id: 2,
      callFrame: frame('main', 'file:///work/main/labs/16-observability/src/app.ts', 9),
      hitCount: 1,
      children: [3, 4],
    },
    { id: 3, callFrame: frame('parse', 'node:internal/url', 40), hitCount: 6 },
    {
      id: 4,
      callFrame: frame('query', 'file:///x/node_modules/.pnpm/mysql2@3.24.6/node_modules/mysql2/lib/pool.js', 1),
      hitCount: 3,
    },
    { id: 5, callFrame: frame('(idle)'), hitCount: 50 },
  ],
};

describe('flame graphs from CPU profiles', () => {
  it("When a frame is labelled, Then it names the function and where it is: the repository's file (no line: tsx's code is not the source's), the package's or Node's module and line [test:flame-labels]", () => {
    expect(frameLabel(profile.nodes[1]!.callFrame)).toBe('main labs/16-observability/src/app.ts');
    expect(frameLabel(profile.nodes[3]!.callFrame)).toBe('query mysql2/lib/pool.js:2');
    expect(frameLabel(profile.nodes[2]!.callFrame)).toBe('parse node:internal/url:41');
    expect(frameLabel(frame(''))).toBe('(anonymous)');
  });

  it('When a profile is folded, Then each stack gets the samples taken in its own frame, and idle time is left out [test:flame-fold]', () => {
    expect([...foldStacks(profile)]).toEqual([
      ['(root);main labs/16-observability/src/app.ts', 1],
      ['(root);main labs/16-observability/src/app.ts;parse node:internal/url:41', 6],
      ['(root);main labs/16-observability/src/app.ts;query mysql2/lib/pool.js:2', 3],
    ]);
  });

  it('When a window is given, Then only the samples V8 took inside it count, by their timestamps [test:flame-window]', () => {
    // Samples at 1010, 1020, 1030 and 1040 µs: parse, parse, query, parse.
    const timed: CpuProfile = { ...profile, startTime: 1000, samples: [3, 3, 4, 3], timeDeltas: [10, 10, 10, 10] };
    expect([...foldStacks(timed, undefined, { fromMicros: 1015, toMicros: 1035 })]).toEqual([
      ['(root);main labs/16-observability/src/app.ts;parse node:internal/url:41', 1],
      ['(root);main labs/16-observability/src/app.ts;query mysql2/lib/pool.js:2', 1],
    ]);
    // Without a window, the hit counts (the whole life of the process).
    expect(foldStacks(timed).get('(root);main labs/16-observability/src/app.ts;parse node:internal/url:41')).toBe(6);
  });

  it('When two processes of one kind are folded together, Then their samples add up stack by stack [test:flame-add-up]', () => {
    const both = foldStacks(profile, foldStacks(profile));
    expect(both.get('(root);main labs/16-observability/src/app.ts;parse node:internal/url:41')).toBe(12);
    const tree = flameTree(both, 'api');
    expect(tree.samples).toBe(20);
    expect(tree.children.map((c) => [c.name, c.samples])).toEqual([['main labs/16-observability/src/app.ts', 20]]);
    expect(tree.children[0]!.children.map((c) => c.samples)).toEqual([12, 6]);
  });

  it('When the graph is drawn, Then each frame is as wide as its samples, callees stand on their callers, and every name is escaped [test:flame-svg]', () => {
    const folded = new Map([
      ['(root);a<b;c', 75],
      ['(root);a<b', 25],
    ]);
    const svg = renderFlameGraph(flameTree(folded, 'api'), 'title & more', 'sub');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('title &amp; more');
    expect(svg).not.toContain('a<b');
    const rects = [...svg.matchAll(/<rect x="([\d.]+)" y="(\d+)" width="([\d.]+)"/g)].map((m) => ({
      y: Number(m[2]),
      width: Number(m[3]),
    }));
    // the root, a<b (all of it) and c (three quarters), one above the other
    expect(rects).toHaveLength(3);
    expect(rects[0]!.y).toBeGreaterThan(rects[1]!.y);
    expect(rects[1]!.y).toBeGreaterThan(rects[2]!.y);
    expect(rects[2]!.width / rects[1]!.width).toBeCloseTo(0.75, 2);
    expect(svg).toContain('<title>c: 75 samples, 75.0 %</title>');
  });

  it('When a frame is a sliver of the total, Then it is not drawn [test:flame-slivers]', () => {
    const svg = renderFlameGraph(
      flameTree(
        new Map([
          ['big', 1000],
          ['tiny', 1],
        ]),
        'api',
      ),
      't',
      's',
    );
    expect(svg).toContain('<title>big:');
    expect(svg).not.toContain('<title>tiny:');
  });

  it("When the hottest frames are asked for, Then they are ranked by their own samples, not their callees' [test:flame-hottest]", () => {
    expect(hottestFrames(foldStacks(profile), 2)).toEqual([
      { frame: 'parse node:internal/url:41', share: 0.6 },
      { frame: 'query mysql2/lib/pool.js:2', share: 0.3 },
    ]);
  });
});
