// Flame graphs of the pipeline's Node processes, from the CPU profiles V8 writes with
// `--cpu-prof`: where each process spends its CPU, as one self-contained SVG per kind of process
// (docs/benchmarks/flame-<role>.svg; hover a frame for its name, file and share).
//
//   profile (.cpuprofile)  a tree of call frames with a sample count each, one sample per ~1 ms
//   folded stacks          "root;caller;callee" -> samples, the format of Brendan Gregg's
//                          flamegraph.pl: several processes of one kind add up line by line
//   flame graph            the folded stacks as a tree, each frame as wide as its samples, callers
//                          below their callees; frames under 0.2 % of the total are left out
//
// Idle time ("(idle)": the event loop waiting) is left out: the graph shows CPU only, so its width
// is the process's CPU, and "(program)" (V8's native code) and "(garbage collector)" stay in.
import { escapeXml } from '@tasks-lab/lab-kit';

/** The parts of V8's .cpuprofile format the graph reads. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    hitCount?: number;
    children?: number[];
  }[];
  /** When sampling began, in microseconds of the host's monotonic clock (process.hrtime's). */
  startTime?: number;
  /** The node each sample was taken in, in order, and the microseconds before each sample. */
  samples?: number[];
  timeDeltas?: number[];
}

/** A span of the host's monotonic clock, in microseconds (process.hrtime.bigint() / 1000). */
export interface SampleWindow {
  fromMicros: number;
  toMicros: number;
}

/** Samples per node: every sample in `window`, or (without a window, or without timed samples) the hit counts. */
function samplesPerNode(profile: CpuProfile, window?: SampleWindow): Map<number, number> {
  const counts = new Map<number, number>();
  if (window && profile.samples && profile.timeDeltas && profile.startTime !== undefined) {
    let at = profile.startTime;
    profile.samples.forEach((id, i) => {
      at += profile.timeDeltas![i] ?? 0;
      if (at >= window.fromMicros && at <= window.toMicros) counts.set(id, (counts.get(id) ?? 0) + 1);
    });
  } else for (const node of profile.nodes) if (node.hitCount) counts.set(node.id, node.hitCount);
  return counts;
}

/** A frame's label: its function and where it is, shortened to the package or the repository path. */
export function frameLabel(callFrame: CpuProfile['nodes'][number]['callFrame']): string {
  const name = callFrame.functionName || '(anonymous)';
  if (!callFrame.url) return name;
  const url = callFrame.url.replace(/^file:\/\//, '');
  // node_modules/.pnpm/<name>@<version>/node_modules/<name>/lib/x.js -> <name>/lib/x.js
  const inPackage = /.*node_modules\/((?:@[^/]+\/)?[^/]+\/.*)$/.exec(url)?.[1];
  const inRepository = /\/((?:labs|shared|perf)\/.*)$/.exec(url)?.[1];
  const where = inPackage ?? inRepository ?? url.replace(/^.*\/(?=[^/]+\/[^/]+$)/, '');
  // A TypeScript file runs as tsx's transpiled code: the profile's line is that code's, not the
  // source's, so only the file is named. Elsewhere the line is kept (0-based in the profile).
  if (where.endsWith('.ts')) return `${name} ${where}`;
  return `${name} ${where}:${callFrame.lineNumber + 1}`;
}

/**
 * The profile's stacks, folded: "root;...;frame" -> samples taken in that frame itself; with a
 * window, only the samples taken inside it (the measured load, not the start-up or the warm-up).
 */
export function foldStacks(
  profile: CpuProfile,
  into = new Map<string, number>(),
  window?: SampleWindow,
): Map<string, number> {
  const hits = samplesPerNode(profile, window);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const childIds = new Set(profile.nodes.flatMap((node) => node.children ?? []));
  const walk = (id: number, path: string) => {
    const node = byId.get(id);
    if (!node) return;
    const label = frameLabel(node.callFrame);
    if (label === '(idle)') return;
    const stack = path ? `${path};${label}` : label;
    const samples = hits.get(id) ?? 0;
    if (samples > 0) into.set(stack, (into.get(stack) ?? 0) + samples);
    for (const child of node.children ?? []) walk(child, stack);
  };
  for (const node of profile.nodes) if (!childIds.has(node.id)) walk(node.id, '');
  return into;
}

/** A frame of the graph: its samples (its own and its callees'), and its callees. */
export interface FlameFrame {
  name: string;
  samples: number;
  children: FlameFrame[];
}

/** The folded stacks as one tree under a root named `rootName` (V8's own "(root)" frame is skipped). */
export function flameTree(folded: ReadonlyMap<string, number>, rootName: string): FlameFrame {
  const root: FlameFrame = { name: rootName, samples: 0, children: [] };
  for (const [stack, samples] of folded) {
    let frame = root;
    frame.samples += samples;
    for (const name of stack.split(';').filter((part, i) => !(i === 0 && part === '(root)'))) {
      let child = frame.children.find((c) => c.name === name);
      if (!child) {
        child = { name, samples: 0, children: [] };
        frame.children.push(child);
      }
      child.samples += samples;
      frame = child;
    }
  }
  const sort = (frame: FlameFrame) => {
    frame.children.sort((a, b) => a.name.localeCompare(b.name));
    frame.children.forEach(sort);
  };
  sort(root);
  return root;
}

/** The frames with the most samples of their own (their callees not counted), largest first. */
export function hottestFrames(folded: ReadonlyMap<string, number>, top: number): { frame: string; share: number }[] {
  const self = new Map<string, number>();
  let total = 0;
  for (const [stack, samples] of folded) {
    const frame = stack.slice(stack.lastIndexOf(';') + 1);
    self.set(frame, (self.get(frame) ?? 0) + samples);
    total += samples;
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, samples]) => ({ frame, share: samples / Math.max(1, total) }));
}

const WIDTH = 1200;
const FRAME_HEIGHT = 16;
const MARGIN = 10;
const TITLE_HEIGHT = 40;
/** Frames narrower than this share of the total are not drawn (they would be slivers). */
const MIN_SHARE = 0.002;
const CHAR_WIDTH = 6.5;

/** Where the frame's code lives, as a colour: the labs' own, a package, Node, or V8. */
function colourOf(name: string): string {
  if (/ (labs|shared|perf)\//.test(name)) return '#e8743b';
  if (/^\((program|garbage collector)\)/.test(name)) return '#9e9e9e';
  if (/ node:/.test(name)) return '#6a9fd4';
  return '#e6b54a';
}

/** The tree as a flame graph: one SVG, callers at the bottom, a <title> on every frame. */
export function renderFlameGraph(root: FlameFrame, title: string, subtitle: string): string {
  const total = Math.max(1, root.samples);
  const depthOf = (frame: FlameFrame): number =>
    frame.samples / total < MIN_SHARE ? 0 : 1 + Math.max(0, ...frame.children.map(depthOf));
  const depth = depthOf(root);
  const height = TITLE_HEIGHT + depth * FRAME_HEIGHT + MARGIN * 2;
  const scale = (WIDTH - 2 * MARGIN) / total;
  const rects: string[] = [];
  const draw = (frame: FlameFrame, x: number, level: number) => {
    if (frame.samples / total < MIN_SHARE) return;
    const width = frame.samples * scale;
    const y = height - MARGIN - (level + 1) * FRAME_HEIGHT;
    const share = ((frame.samples / total) * 100).toFixed(1);
    const chars = Math.floor((width - 6) / CHAR_WIDTH);
    const text =
      chars >= 3
        ? `<text x="${(x + 3).toFixed(1)}" y="${y + 11.5}">${escapeXml(frame.name.length > chars ? `${frame.name.slice(0, chars - 1)}…` : frame.name)}</text>`
        : '';
    rects.push(
      `<g><title>${escapeXml(`${frame.name}: ${frame.samples} samples, ${share} %`)}</title>` +
        `<rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(0.5, width - 0.5).toFixed(1)}" height="${FRAME_HEIGHT - 1}" fill="${colourOf(frame.name)}"/>${text}</g>`,
    );
    let childX = x;
    for (const child of frame.children) {
      draw(child, childX, level + 1);
      childX += child.samples * scale;
    }
  };
  draw(root, MARGIN, 0);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="monospace" font-size="11">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${MARGIN}" y="18" font-size="14" font-family="sans-serif">${escapeXml(title)}</text>`,
    `<text x="${MARGIN}" y="33" font-family="sans-serif" fill="#555555">${escapeXml(subtitle)}</text>`,
    ...rects,
    '</svg>',
    '',
  ].join('\n');
}
