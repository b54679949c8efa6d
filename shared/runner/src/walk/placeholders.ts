// Values in a doc's sample output that legitimately differ on every run: the id a submit returned,
// a process number, a time. Each is TYPED: the doc shows a real-looking sample (a UUID, 25703), and
// the walk accepts only a value of that type in its place, never "anything". Two kinds:
//   - automatic: every UUID and every timestamp in an expected block (no marker needed);
//   - declared: `vary="25703=pid; 1.2 s=duration"` on the block's marker.
// An IDENTITY (a UUID, a pid, a port, a digest) BINDS to the value first seen in its place, for the
// rest of the walk: the same sample later must show the same value (the GET returns the id the POST
// gave), different samples must show different values, and a later command that shows the sample
// (`kill 25703`, `curl .../exports/<the sample id>`) runs with the real value instead. A MEASURE (a
// time, a duration, a count) is only checked for its type: two runs of one timer may differ.
import type { Vary } from './markers.ts';

interface PlaceholderType {
  /** A regular expression source for one value of the type (no anchors, no groups). */
  pattern: (sample: string) => string;
  /**
   * An identity: the same sample stands for the same value all walk long, and different samples
   * for different values (two processes have two pids). A measure (distinct false) is not bound.
   */
  distinct: boolean;
  /** What a person calls it, for messages. */
  describe: string;
  /** A check beyond the pattern (a number within a range); none: the pattern says it all. */
  accepts?: (value: string) => boolean;
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** ISO 8601 (2026-11-30T14:51:03.376Z) or SQL DATETIME (2026-11-30 14:51:03.376000). */
const TIME =
  '\\d{4}-\\d{2}-\\d{2}(?:T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?(?:Z|[+-]\\d{2}:\\d{2})|\\s\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,6})?)';

export const PLACEHOLDER_TYPES: Readonly<Record<string, PlaceholderType>> = {
  uuid: { pattern: () => UUID, distinct: true, describe: 'a UUID' },
  time: { pattern: () => TIME, distinct: false, describe: 'a timestamp' },
  clock: { pattern: () => '\\d{1,2}:\\d{2}:\\d{2}(?:\\.\\d{1,6})?', distinct: false, describe: 'a time of day' },
  stamp: {
    pattern: () => '\\d{8}T\\d{4}(?:\\d{2}(?:\\.\\d{3})?)?',
    distinct: false,
    describe: 'a compact UTC time (20261201T2053, 20261201T205325.220)',
  },
  int: { pattern: () => '\\d+', distinct: false, describe: 'a whole number' },
  // Where the lesson's point is that something happened at least once (a race lost increments),
  // zero must not pass: the count varies, its sign does not.
  count: { pattern: () => '[1-9]\\d*', distinct: false, describe: 'a whole number above zero' },
  number: { pattern: () => '-?\\d+(?:\\.\\d+)?', distinct: false, describe: 'a number' },
  pid: { pattern: () => '[1-9]\\d{0,9}', distinct: true, describe: 'a process id' },
  port: { pattern: () => '[1-9]\\d{0,4}', distinct: true, describe: 'a port' },
  duration: {
    pattern: () => '\\d+(?:\\.\\d+)?\\s?(?:ms|s|min|h)',
    distinct: false,
    describe: 'a duration (a number and ms, s, min or h)',
  },
  hex: {
    pattern: (sample) => `[0-9a-f]{${sample.length}}`,
    distinct: true,
    describe: 'a hex digest of the same length',
  },
  version: {
    pattern: () => '\\d+\\.\\d+(?:\\.\\d+)?(?:[-+~][0-9A-Za-z.+~-]*)?',
    distinct: false,
    describe: 'a version (7.0.15, 10.11.19-MariaDB-0+deb12u1)',
  },
};

/**
 * A type written as alternatives, `native|docker` or `already running|started redis and mysql`:
 * the value is one of those words or phrases, as when the outcome depends on the machine.
 */
function choiceType(type: string): PlaceholderType | undefined {
  const options = type.split('|').map((o) => o.trim());
  if (options.length < 2 || options.some((o) => o === '')) return undefined;
  return {
    pattern: () => `(?:${options.map(escapeRegExp).join('|')})`,
    distinct: false,
    describe: `one of: ${options.join(', ')}`,
  };
}

/**
 * A type written as a range, `9..20`: a number from 9 to 20, as when a measure varies but its
 * size is the point (the one gap of some 12 s among gaps of 2 s).
 */
function rangeType(type: string): PlaceholderType | undefined {
  const m = /^(\d+(?:\.\d+)?)\.\.(\d+(?:\.\d+)?)$/.exec(type);
  if (!m) return undefined;
  const [low, high] = [Number(m[1]), Number(m[2])];
  if (!(low < high)) return undefined;
  return {
    pattern: () => '\\d+(?:\\.\\d+)?',
    distinct: false,
    describe: `a number from ${m[1]} to ${m[2]}`,
    accepts: (value) => Number(value) >= low && Number(value) <= high,
  };
}

/** The type named in a vary entry: a named one, alternatives, or a range. */
export function placeholderType(type: string): PlaceholderType | undefined {
  return PLACEHOLDER_TYPES[type] ?? choiceType(type) ?? rangeType(type);
}

const AUTOMATIC: ReadonlyArray<{ type: string; pattern: RegExp }> = [
  { type: 'uuid', pattern: new RegExp(UUID, 'g') },
  { type: 'time', pattern: new RegExp(TIME, 'g') },
];

/** One place in a line where a value varies. */
export interface Occurrence {
  start: number;
  end: number;
  sample: string;
  type: string;
}

const isWordChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_]/.test(c);

/** Where `sample` stands in `line` as a whole token (not inside a longer word or number). */
function tokenPositions(line: string, sample: string): number[] {
  const positions: number[] = [];
  for (let at = line.indexOf(sample); at >= 0; at = line.indexOf(sample, at + 1)) {
    const before = line[at - 1];
    const after = line[at + sample.length];
    const startsWord = isWordChar(sample[0]);
    const endsWord = isWordChar(sample[sample.length - 1]);
    if ((startsWord && isWordChar(before)) || (endsWord && isWordChar(after))) continue;
    if (/^[\d.]+$/.test(sample) && (before === '.' || after === '.')) continue; // a number inside a longer decimal
    positions.push(at);
  }
  return positions;
}

/** Every varying value in a line: automatic ones, then the known declared samples; no overlaps. */
export function occurrencesIn(line: string, declared: ReadonlyMap<string, string>): Occurrence[] {
  const found: Occurrence[] = [];
  for (const { type, pattern } of AUTOMATIC) {
    for (const m of line.matchAll(pattern))
      found.push({ start: m.index, end: m.index + m[0].length, sample: m[0], type });
  }
  // Longer samples first, so "1.25 s" is not read as "1.2" plus text.
  for (const [sample, type] of [...declared].sort((a, b) => b[0].length - a[0].length)) {
    for (const at of tokenPositions(line, sample)) found.push({ start: at, end: at + sample.length, sample, type });
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Occurrence[] = [];
  for (const occurrence of found)
    if (!kept.some((k) => occurrence.start < k.end && k.start < occurrence.end)) kept.push(occurrence);
  return kept.sort((a, b) => a.start - b.start);
}

export const isGap = (line: string) => line.trim() === '...' || line.trim() === '…';

/**
 * Lines of a block that say something literal: with their varying values taken out, a word of at
 * least three letters is left (`"status":"queued"`, `process 25703 ready`). A line that is only
 * values (a bare id, a time) or a gap does not count: a block of those alone would accept anything
 * of the right shape.
 */
export function literalLineCount(lines: readonly string[], vary: readonly Vary[]): number {
  const declared = new Map(vary.map((v) => [v.sample, v.type]));
  return lines.filter((line) => {
    if (isGap(line)) return false;
    let rest = line;
    for (const o of occurrencesIn(line, declared).reverse()) rest = `${rest.slice(0, o.start)} ${rest.slice(o.end)}`;
    return /[A-Za-z]{3,}/.test(rest);
  }).length;
}

/** What is wrong with a block's declared samples: an unknown type, a sample not of its type, or not in the block. */
export function varyProblems(lines: readonly string[], vary: readonly Vary[]): string[] {
  const problems: string[] = [];
  for (const { sample, type } of vary) {
    const spec = placeholderType(type);
    if (!spec) {
      problems.push(
        `vary: "${type}" is not a type (use ${Object.keys(PLACEHOLDER_TYPES).join(', ')}, or alternatives such as native|docker, or a range such as 9..20)`,
      );
      continue;
    }
    // An identity lives all walk long, so a one-character sample would claim every later "7";
    // a measure is a placeholder only in its own block.
    if (sample.length < 2 && spec.distinct)
      problems.push(`vary: the sample "${sample}" is too short to follow through the walk: show a longer one`);
    if (!new RegExp(`^(?:${spec.pattern(sample)})$`).test(sample) || spec.accepts?.(sample) === false)
      problems.push(`vary: the sample "${sample}" is not ${spec.describe}`);
    if (!lines.some((line) => tokenPositions(line, sample).length > 0))
      problems.push(`vary: the sample "${sample}" does not appear in the block`);
  }
  return problems;
}

/** Samples bound to the values a walk has seen, and the declared samples it knows. */
export class Bindings {
  private readonly values = new Map<string, string>();
  private readonly types = new Map<string, string>();
  /** Identities declared so far (pids, ports): they stay placeholders in later blocks. */
  private readonly identities = new Map<string, string>();
  /** Measures declared by the block being matched: placeholders there only. */
  private measures = new Map<string, string>();

  /** The samples of a new block: its identities join the walk's, its measures replace the last block's. */
  declare(vary: readonly Vary[]): void {
    this.measures = new Map();
    for (const { sample, type } of vary)
      (placeholderType(type)?.distinct ? this.identities : this.measures).set(sample, type);
  }

  /** Every declared sample a line of the current block may hold. */
  get declared(): ReadonlyMap<string, string> {
    return new Map([...this.identities, ...this.measures]);
  }

  valueOf(sample: string): string | undefined {
    return this.values.get(sample);
  }

  /** A copy to bind into tentatively while a block is being matched. */
  clone(): Bindings {
    const copy = new Bindings();
    for (const [k, v] of this.values) copy.values.set(k, v);
    for (const [k, v] of this.types) copy.types.set(k, v);
    for (const [k, v] of this.identities) copy.identities.set(k, v);
    copy.measures = new Map(this.measures);
    return copy;
  }

  /** Binds `sample` to `value`, or says why it cannot: it is bound to another value, or the value is another sample's. */
  bind(sample: string, type: string, value: string): string | undefined {
    const spec = placeholderType(type);
    if (!spec?.distinct) {
      // A measure: its pattern was checked, nothing to bind; a range also checks its value.
      return spec?.accepts && !spec.accepts(value) ? `${value} is not ${spec.describe}` : undefined;
    }
    const bound = this.values.get(sample);
    if (bound !== undefined)
      return bound === value ? undefined : `"${sample}" stands for ${bound} here, but ${value} was seen`;
    for (const [other, otherValue] of this.values) {
      if (otherValue === value && this.types.get(other) === type)
        return `${value} was already seen for "${other}"; "${sample}" must be another ${type}`;
    }
    this.values.set(sample, value);
    this.types.set(sample, type);
    return undefined;
  }

  /**
   * A command as the walk runs it: each sample the walk has bound replaced by its value. A UUID the
   * doc writes in a command before any output showed it (a made-up id, such as 00000000-...) is
   * literal: it binds to itself, so an answer that echoes it must echo it unchanged.
   */
  substitute(command: string): string {
    for (const m of command.matchAll(new RegExp(UUID, 'g')))
      if (this.values.get(m[0]) === undefined) this.bind(m[0], 'uuid', m[0]);
    let result = command;
    for (const [sample, value] of [...this.values].sort((a, b) => b[0].length - a[0].length)) {
      if (sample === value) continue;
      const positions = tokenPositions(result, sample);
      for (const at of positions.reverse())
        result = `${result.slice(0, at)}${value}${result.slice(at + sample.length)}`;
    }
    return result;
  }
}

/** An expected line as an anchored regular expression, with the sample of each group in order. */
export function lineMatcher(line: string, bindings: Bindings): { regex: RegExp; groups: Occurrence[] } {
  const text = line.trim();
  const groups = occurrencesIn(text, bindings.declared);
  let source = '';
  let at = 0;
  for (const occurrence of groups) {
    source += literal(text.slice(at, occurrence.start));
    source += `(${placeholderType(occurrence.type)!.pattern(occurrence.sample)})`;
    at = occurrence.end;
  }
  source += literal(text.slice(at));
  return { regex: new RegExp(`^${source}$`), groups };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// A run of two or more spaces is a column's padding (a table from mysql or a report aligned by
// its widest value): it matches any run of spaces, since a value of another width (9.9 where
// the doc shows 12.3) moves the padding, not the promise. A single space stays a single space.
const literal = (text: string) => escapeRegExp(text).replace(/ {2,}/g, ' +');
