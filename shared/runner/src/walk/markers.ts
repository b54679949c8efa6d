// The walk markers: HTML comments in a lesson doc that say how a program runs its steps. They are
// invisible on a rendered page; the page reads as it did. One marker per line:
//
//   <!-- walk folder labs/11-mysql-leases -->      every terminal starts in this folder
//   <!-- walk run A -->                            the next shell block: each command, to its end, in terminal A
//   <!-- walk run B exit=1 timeout=90s -->         ... which must exit 1, within 90 s
//   <!-- walk start A ready="worker" -->           the next block's one command keeps running; ready once it prints "worker"
//   <!-- walk expect A -->                         the next output block: what terminal A printed (its last run, or
//                                                  what its running command printed since the last expect on it)
//   <!-- walk expect A vary="25703=pid; 1.2 s=duration" within=60s -->   values that vary, by type
//   <!-- walk ctrl-c A -->                         where the doc says to press Ctrl-C in A: SIGINT to A's process group
//   <!-- walk ctrl-z A -->  <!-- walk fg A -->      Ctrl-Z suspends A's running command; `fg` resumes it
//   <!-- walk wait A exit=137 -->                  A's running command ends by itself (a crash fault)
//   <!-- walk closing -->                          the next block runs the lesson's checks: named, not run again
//   <!-- walk verify-output -->                    the next block is a sample of those checks' output
//   <!-- walk skip: opens a browser -->            the next block is not walked, for this reason
import { SECOND } from '@tasks-lab/lab-kit';

export type Marker =
  | { kind: 'folder'; folder: string }
  | { kind: 'run'; terminal: string; exit: number; timeoutMs?: number }
  | { kind: 'start'; terminal: string; ready: string; timeoutMs?: number }
  | { kind: 'expect'; terminal?: string; vary: Vary[]; withinMs?: number }
  | { kind: 'ctrl-c'; terminal: string; exit: number; timeoutMs?: number }
  | { kind: 'wait'; terminal: string; exit: number; timeoutMs?: number }
  | { kind: 'ctrl-z' | 'fg'; terminal: string }
  | { kind: 'closing' }
  | { kind: 'verify-output' }
  | { kind: 'skip'; reason: string };

/** A value in an expected block that legitimately varies, and its type. */
export interface Vary {
  sample: string;
  type: string;
}

export class MarkerError extends Error {}

/** Markers that describe the fenced block right below them. */
export const BLOCK_MARKERS = new Set<Marker['kind']>(['run', 'start', 'expect', 'closing', 'verify-output', 'skip']);

const MARKER_LINE = /^\s*<!--\s*walk\b(.*?)-->\s*$/;
const TERMINAL = /^[A-Z]$/;

/** The marker on this line, or undefined when the line holds none. Throws on a malformed one. */
export function parseMarkerLine(line: string): Marker | undefined {
  const match = MARKER_LINE.exec(line);
  if (!match) {
    if (/<!--\s*walk\b/.test(line))
      throw new MarkerError('a walk marker must open and close on one line: <!-- walk ... -->');
    return undefined;
  }
  return parseMarker((match[1] ?? '').trim());
}

/** "90s", "2min", "500ms" -> milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|min)$/.exec(text);
  if (!match) throw new MarkerError(`"${text}" is not a duration such as 500ms, 90s or 2min`);
  const unit = { ms: 1, s: SECOND, min: 60 * SECOND }[match[2] as 'ms' | 's' | 'min'];
  return Number(match[1]) * unit;
}

/** `word key=value key="two words"` -> the words and the options, in order. */
function tokenise(text: string): { words: string[]; options: Map<string, string> } {
  const words: string[] = [];
  const options = new Map<string, string>();
  const pattern = /([a-z-]+)="([^"]*)"|([a-z-]+)=(\S+)|(\S+)/g;
  for (const m of text.matchAll(pattern)) {
    if (m[1] !== undefined) options.set(m[1], m[2] ?? '');
    else if (m[3] !== undefined) options.set(m[3], m[4] ?? '');
    else words.push(m[5] ?? '');
  }
  return { words, options };
}

function parseVary(text: string): Vary[] {
  return text
    .split(';')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const at = entry.lastIndexOf('=');
      if (at <= 0) throw new MarkerError(`vary entry "${entry}" must be sample=type, such as 25703=pid`);
      return { sample: entry.slice(0, at).trim(), type: entry.slice(at + 1).trim() };
    });
}

function parseMarker(text: string): Marker {
  const skip = /^skip:\s*(.*)$/.exec(text);
  if (skip) {
    const reason = (skip[1] ?? '').trim();
    if (reason.length < 8) throw new MarkerError('walk skip needs its reason: <!-- walk skip: needs a browser -->');
    return { kind: 'skip', reason };
  }
  const { words, options } = tokenise(text);
  const [verb, terminal, ...extra] = words;
  const allowed = (...keys: string[]) => {
    for (const key of options.keys())
      if (!keys.includes(key))
        throw new MarkerError(`walk ${verb} takes no option "${key}" (it takes: ${keys.join(', ') || 'none'})`);
  };
  const needTerminal = (): string => {
    if (!terminal || !TERMINAL.test(terminal))
      throw new MarkerError(`walk ${verb} needs a terminal, a capital letter: <!-- walk ${verb} A -->`);
    if (extra.length > 0) throw new MarkerError(`walk ${verb}: unexpected "${extra.join(' ')}"`);
    return terminal;
  };
  const timeoutMs = options.has('timeout') ? parseDuration(options.get('timeout')!) : undefined;
  const exit = () => {
    const raw = options.get('exit') ?? '0';
    if (!/^\d{1,3}$/.test(raw)) throw new MarkerError(`exit=${raw} is not an exit code`);
    return Number(raw);
  };
  switch (verb) {
    case 'folder':
      allowed();
      if (!terminal || extra.length > 0)
        throw new MarkerError('walk folder takes one folder: <!-- walk folder labs/11-mysql-leases -->');
      return { kind: 'folder', folder: terminal };
    case 'run':
      allowed('exit', 'timeout');
      return { kind: 'run', terminal: needTerminal(), exit: exit(), timeoutMs };
    case 'start': {
      allowed('ready', 'timeout');
      const ready = options.get('ready');
      if (!ready)
        throw new MarkerError(
          'walk start needs the text of its ready line: <!-- walk start A ready="listening on" -->',
        );
      return { kind: 'start', terminal: needTerminal(), ready, timeoutMs };
    }
    case 'expect': {
      allowed('vary', 'within');
      if (terminal !== undefined && !TERMINAL.test(terminal))
        throw new MarkerError(`walk expect: "${terminal}" is not a terminal (a capital letter)`);
      if (extra.length > 0) throw new MarkerError(`walk expect: unexpected "${extra.join(' ')}"`);
      const withinMs = options.has('within') ? parseDuration(options.get('within')!) : undefined;
      return { kind: 'expect', terminal, vary: parseVary(options.get('vary') ?? ''), withinMs };
    }
    case 'ctrl-c':
    case 'wait':
      allowed('exit', 'timeout');
      return { kind: verb, terminal: needTerminal(), exit: exit(), timeoutMs };
    case 'ctrl-z':
    case 'fg':
      allowed();
      return { kind: verb, terminal: needTerminal() };
    case 'closing':
    case 'verify-output':
      allowed();
      if (terminal !== undefined) throw new MarkerError(`walk ${verb} takes nothing else`);
      return { kind: verb };
    default:
      throw new MarkerError(
        `unknown walk marker "${verb ?? ''}": use folder, run, start, expect, ctrl-c, ctrl-z, fg, wait, closing, verify-output or skip:`,
      );
  }
}
