// Looks the decision record's evidence up in the earlier labs' .lab-result.json files
// (written by lab-kit's runVerify) and audits the record as a whole.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORK_KINDS, type DecisionRecord, type Evidence } from './decision-record.ts';

export interface RecordedCheck {
  name: string;
  ok: boolean;
  observed: string;
}

export interface LabResultFile {
  lesson: string;
  finishedAt: string;
  results: RecordedCheck[];
}

export function readLabResult(labsDir: string, lab: string): LabResultFile | null {
  const file = join(labsDir, lab, '.lab-result.json');
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, 'utf8')) as LabResultFile;
}

export interface EvidenceFinding {
  evidence: Evidence;
  found: boolean;
  /** The quoted figure when found, otherwise why not. */
  detail: string;
}

/** Evidence counts only when the named check exists, passed, and its observed text holds the figure. */
export function lookUpEvidence(labsDir: string, evidence: Evidence): EvidenceFinding {
  const missing = (detail: string): EvidenceFinding => ({ evidence, found: false, detail });
  const result = readLabResult(labsDir, evidence.lab);
  if (!result) return missing(`lab ${evidence.lab} has no .lab-result.json (run its verify)`);
  const wanted = evidence.check.toLowerCase();
  const check = result.results.find((r) => r.name.toLowerCase().includes(wanted));
  if (!check) return missing(`lab ${evidence.lab} has no check named like "${evidence.check}"`);
  if (!check.ok) return missing(`lab ${evidence.lab} check "${check.name}" failed: ${check.observed}`);
  const quote = check.observed.match(evidence.quote);
  if (!quote) return missing(`lab ${evidence.lab} check "${check.name}" observed "${check.observed}", which does not contain ${evidence.quote}`);
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
    if (rows.length !== 1) {
      problems.push(`kind ${kind} appears ${rows.length} times (expected once)`);
      continue;
    }
    const row = rows[0];
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
