// Looks the decision record's evidence up in the earlier labs' .lab-result.json files
// (written by lab-kit's runVerify) and audits the record as a whole.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CodedError, errorMessage } from '@tasks-lab/lab-kit';
import { z } from 'zod';
import { WORK_KINDS, type DecisionRecord, type Evidence } from './decision-record.ts';

/** One check's line of a .lab-result.json. `id` is missing only in files written before checks had ids. */
const recordedCheckSchema = z.object({
  id: z.string().optional(),
  name: z.string(),
  ok: z.boolean(),
  observed: z.string(),
});
export type RecordedCheck = z.infer<typeof recordedCheckSchema>;

/** What lab-kit's runVerify writes to a lab's .lab-result.json (the fields lesson 07 reads). */
const labResultSchema = z.object({
  lesson: z.string(),
  finishedAt: z.iso.datetime(),
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  results: z.array(recordedCheckSchema),
});
export type LabResultFile = z.infer<typeof labResultSchema>;

export class LabResultUnreadableError extends CodedError {
  constructor(file: string, reason: string) {
    super('lab-result-unreadable', `${file} is not a verify result: ${reason}`);
  }
}

/** The lab's .lab-result.json, or null when its verify never finished; a malformed file is an error naming it. */
export function readLabResult(labsDir: string, lab: string): LabResultFile | null {
  const file = join(labsDir, lab, '.lab-result.json');
  if (!existsSync(file)) return null;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new LabResultUnreadableError(file, errorMessage(err));
  }
  const parsed = labResultSchema.safeParse(json);
  if (!parsed.success) throw new LabResultUnreadableError(file, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return parsed.data;
}

export interface EvidenceFinding {
  evidence: Evidence;
  found: boolean;
  /** The quoted figure when found, otherwise why not. */
  detail: string;
}

/** Evidence counts only when the check with that id exists, passed, and its observed text holds the figure. */
export function lookUpEvidence(labsDir: string, evidence: Evidence): EvidenceFinding {
  const missing = (detail: string): EvidenceFinding => ({ evidence, found: false, detail });
  let result: LabResultFile | null;
  try {
    result = readLabResult(labsDir, evidence.lab);
  } catch (err) {
    return missing(errorMessage(err));
  }
  if (!result) return missing(`lab ${evidence.lab} has no .lab-result.json (run its verify)`);
  if (result.results.some((r) => r.id === undefined)) {
    return missing(`lab ${evidence.lab}'s .lab-result.json predates check ids (run its verify again)`);
  }
  const check = result.results.find((r) => r.id === evidence.checkId);
  if (!check) return missing(`lab ${evidence.lab} has no check [${evidence.checkId}]; its checks are ${result.results.map((r) => r.id).join(', ')}`);
  if (!check.ok) return missing(`lab ${evidence.lab} check [${evidence.checkId}] failed: ${check.observed}`);
  const quote = check.observed.match(evidence.quote);
  if (!quote) return missing(`lab ${evidence.lab} check [${evidence.checkId}] observed "${check.observed}", which does not contain ${evidence.quote}`);
  return { evidence, found: true, detail: `lab ${evidence.lab.slice(0, 2)} "${quote[0]}"` };
}

export interface RecordAudit {
  ok: boolean;
  problems: string[];
  /** One line per kind: its executor and the evidence found. */
  lines: string[];
}

export function auditDecisionRecord(record: DecisionRecord, labsDir: string): RecordAudit {
  const problems: string[] = [];
  const lines: string[] = [];
  for (const kind of WORK_KINDS) {
    const rows = record.rows.filter((row) => row.kind === kind);
    const [row] = rows;
    if (row === undefined || rows.length !== 1) {
      problems.push(`kind ${kind} appears ${rows.length} times (expected once)`);
      continue;
    }
    for (const field of ['work', 'constraint', 'why', 'limit', 'builtIn'] as const) {
      if (row[field].trim() === '') problems.push(`${kind}: "${field}" is empty`);
    }
    if (row.evidence.length === 0) problems.push(`${kind}: cites no evidence`);
    const findings = row.evidence.map((evidence) => lookUpEvidence(labsDir, evidence));
    for (const finding of findings.filter((f) => !f.found)) problems.push(`${kind}: ${finding.detail}`);
    const quotes = findings.filter((f) => f.found).map((f) => f.detail);
    lines.push(`${kind} -> ${row.executor}/${row.delivery} [${quotes.join(', ') || 'no evidence'}]`);
  }
  const placements = new Set(record.rows.map((row) => `${row.executor}/${row.delivery}`));
  if (placements.size < record.rows.length) problems.push('two kinds share one placement: the record does not tell them apart');
  if (!record.rows.some((row) => row.delivery === 'task-queue')) problems.push('no kind of work goes through a task queue');
  return { ok: problems.length === 0, problems, lines };
}
