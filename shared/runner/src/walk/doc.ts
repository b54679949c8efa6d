// A lesson doc read as a walk: its marked blocks, in order, become steps. Every block a student
// could take for a step (a shell block, an output block, an SQL block) must carry a marker, so a
// step cannot silently go untested: an unmarked one is a problem that fails the walk.
import { BLOCK_MARKERS, MarkerError, parseMarkerLine, type Marker, type Vary } from './markers.ts';
import { literalLineCount, varyProblems } from './placeholders.ts';

interface StepBase {
  /** The doc's line of the marker, 1-based. */
  line: number;
}

export type Step = StepBase &
  (
    | { kind: 'run'; terminal: string; commands: string[]; exit: number; timeoutMs?: number }
    | { kind: 'start'; terminal: string; command: string; ready: string; timeoutMs?: number }
    | {
        kind: 'expect';
        terminal?: string;
        lines: string[];
        vary: Vary[];
        withinMs?: number /** The doc's line of the block's first line. */;
        firstLine: number;
      }
    | { kind: 'ctrl-c' | 'wait'; terminal: string; exit: number; timeoutMs?: number }
    | { kind: 'ctrl-z' | 'fg'; terminal: string }
    | { kind: 'closing'; commands: string[] }
    | { kind: 'verify-output'; lines: string[] }
    | { kind: 'skip'; reason: string; shows: string }
  );

export interface WalkDoc {
  /** The folder every terminal starts in, relative to the repository root ('' for the root). */
  folder: string;
  steps: Step[];
  /** What is wrong with the doc as a walk, each naming its line. Any problem fails the walk. */
  problems: string[];
}

const SHELL = new Set(['sh', 'bash', 'shell', 'zsh', 'console']);
const OUTPUT = new Set(['', 'text', 'output', 'plaintext']);
/** Blocks a student could take for a step: each needs a marker. Code excerpts (ts, json, yaml) do not. */
const NEEDS_MARKER = new Set([...SHELL, ...OUTPUT, 'sql']);

interface Fence {
  line: number;
  lang: string;
  body: string[];
}

/** The fenced blocks of a Markdown text, and every other line with its number. */
function readFences(text: string): Array<{ fence: Fence } | { line: number; text: string }> {
  const items: Array<{ fence: Fence } | { line: number; text: string }> = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i] ?? '');
    if (!open) {
      items.push({ line: i + 1, text: lines[i] ?? '' });
      continue;
    }
    const [, indent = '', marks = '```', lang = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const raw = lines[j] ?? '';
      if (raw.trim().startsWith(marks) && raw.trim().replace(/[`~]/g, '') === '') break;
      body.push(raw.startsWith(indent) ? raw.slice(indent.length) : raw.trimStart());
    }
    items.push({ fence: { line: i + 1, lang: lang.toLowerCase(), body } });
    i = j;
  }
  return items;
}

/** A shell block's commands: one per line; a line ending in a backslash continues on the next one. */
export function commandsOf(body: readonly string[]): { commands: string[]; commentOnly: string[] } {
  const commands: string[] = [];
  const commentOnly: string[] = [];
  let pending = '';
  for (const raw of body) {
    const line = raw.trimEnd();
    if (!pending && line.trim() === '') continue;
    if (!pending && /^\s*#/.test(line)) {
      commentOnly.push(line.trim());
      continue;
    }
    if (line.endsWith('\\')) {
      pending += `${line}\n`; // the backslash stays: bash reads it as a continued line, as a terminal does
      continue;
    }
    commands.push(`${pending}${line}`.trim());
    pending = '';
  }
  if (pending) commands.push(pending.trim());
  return { commands, commentOnly };
}

function stepFor(marker: Marker, fence: Fence, markerLine: number, problem: (text: string) => void): Step | undefined {
  const isShell = SHELL.has(fence.lang);
  const line = markerLine;
  switch (marker.kind) {
    case 'run':
    case 'start':
    case 'closing': {
      if (!isShell)
        return (
          problem(`walk ${marker.kind} must stand above a shell block (\`\`\`sh), not \`\`\`${fence.lang}`), undefined
        );
      const { commands, commentOnly } = commandsOf(fence.body);
      // A line that is only a comment stands for something the student must do, with no command to do it.
      for (const comment of commentOnly)
        problem(
          `a walked block holds a line that is only a comment ("${comment}"): put what it says in a command, or in the prose around the block`,
        );
      if (commands.length === 0) return (problem('the block holds no command'), undefined);
      if (marker.kind === 'run')
        return {
          kind: 'run',
          line,
          terminal: marker.terminal,
          commands,
          exit: marker.exit,
          timeoutMs: marker.timeoutMs,
        };
      if (marker.kind === 'closing') return { kind: 'closing', line, commands };
      if (commands.length !== 1)
        return (problem('walk start takes a block with one command (the one that keeps running)'), undefined);
      return {
        kind: 'start',
        line,
        terminal: marker.terminal,
        command: commands[0]!,
        ready: marker.ready,
        timeoutMs: marker.timeoutMs,
      };
    }
    case 'expect': {
      if (isShell) return (problem('walk expect must stand above an output block, not a shell block'), undefined);
      for (const text of varyProblems(fence.body, marker.vary)) problem(text);
      if (literalLineCount(fence.body, marker.vary) === 0)
        problem(
          'an expected block needs at least one literal line: one that still says something once its varying values are taken out',
        );
      return {
        kind: 'expect',
        line,
        terminal: marker.terminal,
        lines: fence.body,
        vary: marker.vary,
        withinMs: marker.withinMs,
        firstLine: fence.line + 1,
      };
    }
    case 'verify-output':
      return { kind: 'verify-output', line, lines: fence.body };
    case 'skip':
      return { kind: 'skip', line, reason: marker.reason, shows: fence.body.find((l) => l.trim())?.trim() ?? '' };
    default:
      return undefined;
  }
}

/** Reads a lesson doc's walk: its folder, its steps and what is wrong with them. */
export function parseWalk(text: string): WalkDoc {
  const problems: string[] = [];
  const steps: Step[] = [];
  let folder = '';
  let pending: { marker: Marker; line: number } | undefined;
  for (const item of readFences(text)) {
    if ('fence' in item) {
      const { fence } = item;
      const at = (t: string) => problems.push(`line ${pending?.line ?? fence.line}: ${t}`);
      if (pending) {
        const step = stepFor(pending.marker, fence, pending.line, at);
        if (step) steps.push(step);
        pending = undefined;
      } else if (NEEDS_MARKER.has(fence.lang)) {
        problems.push(
          `line ${fence.line}: this \`\`\`${fence.lang || '(no language)'} block has no walk marker: mark it as a step (run, start, expect, closing) or say why it is not walked (<!-- walk skip: reason -->)`,
        );
      }
      continue;
    }
    let marker: Marker | undefined;
    try {
      marker = parseMarkerLine(item.text);
    } catch (err) {
      if (!(err instanceof MarkerError)) throw err;
      problems.push(`line ${item.line}: ${err.message}`);
      continue;
    }
    if (!marker) {
      // Prose between a block marker and its block would let the marker describe the wrong block.
      if (pending && item.text.trim() !== '') {
        problems.push(
          `line ${pending.line}: walk ${pending.marker.kind} is not followed by a block (only blank lines may come between)`,
        );
        pending = undefined;
      }
      continue;
    }
    if (pending) {
      problems.push(`line ${pending.line}: walk ${pending.marker.kind} is not followed by a block`);
      pending = undefined;
    }
    if (BLOCK_MARKERS.has(marker.kind)) pending = { marker, line: item.line };
    else if (marker.kind === 'folder') folder = marker.folder;
    else if (marker.kind === 'ctrl-c' || marker.kind === 'wait') {
      steps.push({
        kind: marker.kind,
        line: item.line,
        terminal: marker.terminal,
        exit: marker.exit,
        timeoutMs: marker.timeoutMs,
      });
    } else if (marker.kind === 'ctrl-z' || marker.kind === 'fg') {
      steps.push({ kind: marker.kind, line: item.line, terminal: marker.terminal });
    }
  }
  if (pending) problems.push(`line ${pending.line}: walk ${pending.marker.kind} is not followed by a block`);
  // The student must be told where to work: a folder the doc never names with `cd` is a step they cannot know.
  if (folder && !text.includes(`cd ${folder}`))
    problems.push(`the walk runs in ${folder}, but the doc never tells the student to \`cd ${folder}\``);
  return { folder, steps, problems };
}
