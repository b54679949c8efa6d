// The decision record: where each kind of export work runs, and which value from
// your own run of labs 01-06 backs the choice. It is a markdown file with two tables
// and a list (exercise/decision-record.md is yours, solutions/decision-record.md is
// the reference); this module reads one into data. evidence.ts grades it against the
// run recorded in .earlier-labs.json and each lab's .lab-result.json.

/** Where a piece of work runs in Node: the event loop, a worker thread, or another OS process. */
export type Executor = 'event-loop' | 'worker-thread' | 'separate-process';
export const EXECUTORS: readonly Executor[] = ['event-loop', 'worker-thread', 'separate-process'];

/**
 * How the work reaches its executor: handed over directly by the process that took
 * the request (and lost with it), or through a task queue that outlives that process.
 */
export type Delivery = 'direct' | 'task-queue';
export const DELIVERIES: readonly Delivery[] = ['direct', 'task-queue'];

export type WorkKind = 'io-wait' | 'blocking-call' | 'cpu-bound' | 'durable';
export const WORK_KINDS: readonly WorkKind[] = ['io-wait', 'blocking-call', 'cpu-bound', 'durable'];

/** What the lesson accepts for one kind of work, and which labs measured that kind. */
export interface KindRule {
  /** The concrete piece of export work the record places. */
  work: string;
  executors: readonly Executor[];
  delivery: Delivery;
  /** Lab numbers ("02") whose checks observed this kind of work. */
  labs: readonly string[];
  /** Why, said to a record that chose otherwise. */
  because: string;
}

export const KIND_RULES: Readonly<Record<WorkKind, KindRule>> = {
  'io-wait': {
    work: 'read 20 products over the network within one request',
    executors: ['event-loop'],
    delivery: 'direct',
    labs: ['02'],
    because: 'awaitable I/O overlaps on the event loop while it waits, and it must finish inside the request',
  },
  'blocking-call': {
    work: 'upload one export file with a synchronous SDK call, with a timeout',
    executors: ['worker-thread'],
    delivery: 'direct',
    labs: ['04', '05'],
    because: 'a blocking call on the event loop freezes every request; a small pool of worker threads takes the block',
  },
  'cpu-bound': {
    work: 'score the text of a large batch of products',
    // Node's worker threads run JavaScript in parallel (no GIL): either is a defensible home.
    executors: ['separate-process', 'worker-thread'],
    delivery: 'direct',
    labs: ['04', '06'],
    because: 'CPU work on the event loop stalls every request; it needs other cores (processes, or threads in Node)',
  },
  durable: {
    work: 'finish an export even after the API process stops or restarts',
    executors: ['separate-process'],
    delivery: 'task-queue',
    labs: ['01', '03'],
    because: 'only a queue outside the API process, consumed by a worker in its own process, outlives the API',
  },
};

/** The task queue's runtime boundaries, one line each in the record's list. */
export const QUEUE_RUNTIME_FIELDS = {
  broker: 'broker',
  worker: 'worker',
  sourceOfTruth: 'source of truth',
  delivery: 'delivery',
  resultCache: 'result cache',
} as const;
export type QueueRuntimeField = keyof typeof QUEUE_RUNTIME_FIELDS;
export type QueueRuntime = Record<QueueRuntimeField, string>;

/** One row of the placement table, as written (the grader judges the values). */
export interface PlacementRow {
  kind: string;
  executor: string;
  delivery: string;
  /** What this choice does not solve. */
  limit: string;
}

/** One row of the evidence table: a value a check observed in your run. */
export interface EvidenceRow {
  kind: string;
  /** The lab number, "02" (or its folder name). */
  lab: string;
  checkId: string;
  /** A phrase copied from that check's observed text, with its figure. */
  value: string;
}

export interface DecisionRecord {
  placements: PlacementRow[];
  evidence: EvidenceRow[];
  queue: QueueRuntime;
}

/** The columns each table must have (extra columns, such as "the work", are allowed). */
export const PLACEMENT_COLUMNS = {
  kind: 'kind',
  executor: 'executor',
  delivery: 'delivery',
  limit: 'what it does not solve',
} as const;
export const EVIDENCE_COLUMNS = {
  kind: 'kind',
  lab: 'lab',
  checkId: 'check id',
  value: 'value observed in my run',
} as const;

/** `___` marks a cell the student has not filled in yet. */
const UNFILLED = /^_+$/;

/** A cell's text: trimmed, without surrounding backticks, and empty when still `___`. */
function cellText(raw: string): string {
  const text = raw
    .trim()
    .replace(/^`(.*)`$/, '$1')
    .trim();
  return UNFILLED.test(text) ? '' : text.replace(/\\\|/g, '|');
}

/** The cells of one `| a | b |` line; `\|` inside a cell is a literal pipe. */
function splitRow(line: string): string[] {
  const inner = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  return inner.split(/(?<!\\)\|/).map(cellText);
}

/** Every markdown table in the text, as rows of cells (header first, separator row dropped). */
function tablesIn(markdown: string): string[][][] {
  const tables: string[][][] = [];
  let current: string[][] | undefined;
  for (const line of markdown.split('\n')) {
    if (!line.trim().startsWith('|')) {
      current = undefined;
      continue;
    }
    if (/^\|?[\s:|-]+$/.test(line.trim()) && line.includes('-')) continue; // |---|---|
    if (!current) tables.push((current = []));
    current.push(splitRow(line));
  }
  return tables;
}

/** The rows of the first table whose header has every wanted column, keyed by field. */
function rowsOf<K extends string>(tables: string[][][], columns: Record<K, string>): Array<Record<K, string>> {
  const fields = Object.keys(columns) as K[];
  for (const [header = [], ...rows] of tables) {
    const names = header.map((cell) => cell.toLowerCase());
    const at = fields.map((field) => names.indexOf(columns[field]));
    if (at.some((index) => index === -1)) continue;
    return rows.map(
      (row) => Object.fromEntries(fields.map((field, i) => [field, row[at[i] ?? -1] ?? ''])) as Record<K, string>,
    );
  }
  return [];
}

/** The `- broker: ...` lines of the runtime list; a missing or `___` line reads as empty. */
function queueRuntimeIn(markdown: string): QueueRuntime {
  const queue = { broker: '', worker: '', sourceOfTruth: '', delivery: '', resultCache: '' };
  for (const [field, label] of Object.entries(QUEUE_RUNTIME_FIELDS) as Array<[QueueRuntimeField, string]>) {
    const line = new RegExp(`^\\s*[-*]\\s*${label}\\s*:(.*)$`, 'im').exec(markdown);
    queue[field] = cellText(line?.[1] ?? '');
  }
  return queue;
}

/** Reads a decision record written in markdown. Nothing is judged here: empty cells stay empty. */
export function parseDecisionRecord(markdown: string): DecisionRecord {
  const tables = tablesIn(markdown);
  return {
    placements: rowsOf(tables, PLACEMENT_COLUMNS),
    evidence: rowsOf(tables, EVIDENCE_COLUMNS),
    queue: queueRuntimeIn(markdown),
  };
}
