// Grades a decision record (decision-record.ts reads it) against a recorded run of
// labs 01-06: each kind must be placed the way the lesson's measurements allow, and
// every value the record cites must appear, word for word, in the observed text of a
// passed check of that run. A record copied from someone else's machine, or from an
// older run whose figures have changed since, does not pass.
import { existsSync, readFileSync } from 'node:fs';
import { errorMessage } from '@tasks-lab/lab-kit';
import {
  DELIVERIES,
  EXECUTORS,
  KIND_RULES,
  parseDecisionRecord,
  QUEUE_RUNTIME_FIELDS,
  WORK_KINDS,
  type DecisionRecord,
  type Delivery,
  type EvidenceRow,
  type Executor,
  type QueueRuntimeField,
  type WorkKind,
} from './decision-record.ts';
import {
  EARLIER_LABS_FILE,
  readEarlierLabsRecord,
  readLabResult,
  type EarlierLabsSeen,
  type LabResultFile,
} from './recorded-run.ts';

/** Where the run that a record cites was recorded. */
export interface RecordedRun {
  /** The labs folder: each lab's .lab-result.json. */
  labsDir: string;
  /** This lab's folder: .earlier-labs.json. */
  labDir: string;
}

export interface RecordGrade {
  /** Problems with the placement table (executor, delivery, limit of each kind). */
  placement: string[];
  /** Problems with the cited values. */
  evidence: string[];
  /** Problems with the task queue's runtime list. */
  queue: string[];
  /** What was found, one line per kind, for a passing report. */
  lines: string[];
}

export const gradeProblems = (grade: RecordGrade): string[] => [...grade.placement, ...grade.evidence, ...grade.queue];

const isKind = (text: string): text is WorkKind => (WORK_KINDS as readonly string[]).includes(text);
const oneOf = (values: readonly string[]) => values.join(', ');

// ------------------------------------------------------------ placements

function placementProblems(record: DecisionRecord): string[] {
  const problems = record.placements
    .filter((row) => !isKind(row.kind))
    .map((row) => `kind "${row.kind}" is not one of ${oneOf(WORK_KINDS)}`);
  for (const kind of WORK_KINDS) {
    const rows = record.placements.filter((row) => row.kind === kind);
    const [row] = rows;
    if (row === undefined || rows.length !== 1) {
      problems.push(`${kind}: placed ${rows.length} times (expected once)`);
      continue;
    }
    const rule = KIND_RULES[kind];
    if (row.executor === '') problems.push(`${kind}: executor not filled in (${oneOf(EXECUTORS)})`);
    else if (!EXECUTORS.includes(row.executor as Executor))
      problems.push(`${kind}: "${row.executor}" is not an executor (${oneOf(EXECUTORS)})`);
    else if (!rule.executors.includes(row.executor as Executor)) {
      problems.push(`${kind}: runs on ${rule.executors.join(' or ')}, not ${row.executor}: ${rule.because}`);
    }
    if (row.delivery === '') problems.push(`${kind}: delivery not filled in (${oneOf(DELIVERIES)})`);
    else if (!DELIVERIES.includes(row.delivery as Delivery))
      problems.push(`${kind}: "${row.delivery}" is not a delivery (${oneOf(DELIVERIES)})`);
    else if (row.delivery !== rule.delivery)
      problems.push(`${kind}: delivery is ${rule.delivery}, not ${row.delivery}: ${rule.because}`);
    if (row.limit === '')
      problems.push(`${kind}: "what it does not solve" is empty (every choice leaves something unsolved)`);
  }
  return problems;
}

// ------------------------------------------------------------ cited values

export interface CitedValueFinding {
  row: EvidenceRow;
  found: boolean;
  /** The quote with its lab and check when found, otherwise why not. */
  detail: string;
}

/** A value is a measurement when it holds a figure and is long enough to be a phrase, not a bare number. */
const MIN_VALUE_LENGTH = 8;
const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The lab folder ("02-bounded-async") a record's lab cell ("02", "lab 02", "02-bounded-async") names in the run. */
function labInRun(cell: string, run: EarlierLabsSeen): { number?: string; folder?: string; status?: string } {
  const number = /^(?:lab\s*)?(\d{2})\b/i.exec(cell.trim())?.[1];
  const seen = number === undefined ? undefined : run.labs.find((lab) => lab.lab.startsWith(`${number}-`));
  return { number, folder: seen?.lab, status: seen?.status };
}

/** Finds one cited value in the recorded run: the lab passed, the check passed, its observed text holds the value. */
export function lookUpCitedValue(row: EvidenceRow, run: EarlierLabsSeen, labsDir: string): CitedValueFinding {
  const missing = (detail: string): CitedValueFinding => ({ row, found: false, detail: `${row.kind}: ${detail}` });
  const rule = isKind(row.kind) ? KIND_RULES[row.kind] : undefined;
  if (!rule) return missing(`not one of ${oneOf(WORK_KINDS)}`);
  if (row.lab === '' || row.checkId === '' || row.value === '')
    return missing('lab, check id and value must all be filled in');
  const lab = labInRun(row.lab, run);
  if (lab.number === undefined) return missing(`"${row.lab}" is not a lab number (01-06)`);
  if (!rule.labs.includes(lab.number))
    return missing(`lab ${lab.number} did not measure this kind of work (cite lab ${rule.labs.join(' or ')})`);
  if (!lab.folder) return missing(`lab ${lab.number} is not in your run (${EARLIER_LABS_FILE})`);
  if (lab.status !== 'passed') return missing(`lab ${lab.folder} did not pass in your run (${lab.status})`);
  const value = squeeze(row.value);
  if (!/\d/.test(value) || value.length < MIN_VALUE_LENGTH) {
    return missing(
      `"${row.value}" is not a measured value: copy a phrase with its figure from the check's observed text`,
    );
  }
  let result: LabResultFile | null;
  try {
    result = readLabResult(labsDir, lab.folder);
  } catch (err) {
    return missing(errorMessage(err));
  }
  if (!result) return missing(`lab ${lab.folder} has no .lab-result.json (run its verify)`);
  if (result.results.some((r) => r.id === undefined))
    return missing(`lab ${lab.folder}'s .lab-result.json predates check ids (run its verify again)`);
  const check = result.results.find((r) => r.id === row.checkId);
  if (!check)
    return missing(
      `lab ${lab.folder} has no check [${row.checkId}]; its checks are ${result.results.map((r) => r.id).join(', ')}`,
    );
  if (!check.ok) return missing(`lab ${lab.folder} check [${row.checkId}] failed in your run: ${check.observed}`);
  if (!squeeze(check.observed).includes(value)) {
    return missing(
      `lab ${lab.folder} check [${row.checkId}] observed "${check.observed}" in your run of ${result.finishedAt}, which does not contain "${value}"`,
    );
  }
  return { row, found: true, detail: `lab ${lab.number} [${row.checkId}] "${value}"` };
}

/** The run's .earlier-labs.json, or the one problem that says why there is none to grade against. */
function earlierRun(labDir: string): EarlierLabsSeen | string {
  try {
    return (
      readEarlierLabsRecord(labDir) ??
      `no ${EARLIER_LABS_FILE} yet: run \`pnpm earlier\` (or \`pnpm verify\`), then cite values from that run`
    );
  } catch (err) {
    return errorMessage(err);
  }
}

function evidenceGrade(record: DecisionRecord, run: RecordedRun): { problems: string[]; found: CitedValueFinding[] } {
  const earlier = earlierRun(run.labDir);
  if (typeof earlier === 'string') return { problems: [earlier], found: [] };
  const problems = WORK_KINDS.filter((kind) => !record.evidence.some((row) => row.kind === kind)).map(
    (kind) => `${kind}: cites no value from your run`,
  );
  const findings = record.evidence.map((row) => lookUpCitedValue(row, earlier, run.labsDir));
  problems.push(...findings.filter((f) => !f.found).map((f) => f.detail));
  return { problems, found: findings.filter((f) => f.found) };
}

// ------------------------------------------------------------ the queue's runtime

/** What each runtime line must say, and why, for a line that does not. */
const QUEUE_FACTS: Record<QueueRuntimeField, { says: RegExp[]; never?: RegExp; because: string }> = {
  broker: { says: [/redis/i], because: 'name the broker: Redis' },
  worker: {
    says: [/process/i, /linux|wsl/i],
    because: 'the worker runs in its own process, on Linux or WSL2 (not native Windows)',
  },
  sourceOfTruth: {
    says: [/mysql|mariadb/i],
    because: 'the job table in MySQL (or MariaDB, which the labs run without Docker) is the source of truth',
  },
  delivery: {
    says: [/at least once|more than once|twice|duplicate/i],
    never: /exactly once|only once/i,
    because:
      'a queue delivers at least once (acks, redelivery and side effects leave a window), so the export must be idempotent',
  },
  resultCache: {
    says: [/expire|limited time|short|ttl/i],
    because: 'cached results expire; an expired result does not mean the job never existed',
  },
};

function queueProblems(record: DecisionRecord): string[] {
  const problems: string[] = [];
  for (const [field, fact] of Object.entries(QUEUE_FACTS) as Array<
    [QueueRuntimeField, (typeof QUEUE_FACTS)[QueueRuntimeField]]
  >) {
    const text = record.queue[field];
    const label = QUEUE_RUNTIME_FIELDS[field];
    if (text === '') problems.push(`${label}: not filled in (${fact.because})`);
    else if (fact.never?.test(text) || !fact.says.every((pattern) => pattern.test(text)))
      problems.push(`${label}: "${text}" (${fact.because})`);
  }
  return problems;
}

// ------------------------------------------------------------ the whole record

export function gradeDecisionRecord(record: DecisionRecord, run: RecordedRun): RecordGrade {
  const evidence = evidenceGrade(record, run);
  const lines = WORK_KINDS.map((kind) => {
    const placed = record.placements.find((row) => row.kind === kind);
    const quotes = evidence.found.filter((f) => f.row.kind === kind).map((f) => f.detail);
    return `${kind} -> ${placed?.executor || '?'}/${placed?.delivery || '?'} [${quotes.join(', ') || 'no value found'}]`;
  });
  return { placement: placementProblems(record), evidence: evidence.problems, queue: queueProblems(record), lines };
}

/** Reads and grades a record file; a missing file is one problem that names it. */
export function gradeDecisionRecordFile(file: string, run: RecordedRun): RecordGrade {
  if (!existsSync(file)) return { placement: [`no decision record at ${file}`], evidence: [], queue: [], lines: [] };
  return gradeDecisionRecord(parseDecisionRecord(readFileSync(file, 'utf8')), run);
}
