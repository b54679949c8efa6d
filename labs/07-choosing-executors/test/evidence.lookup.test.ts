import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DECISION_RECORD, type DecisionRecord, type DecisionRow, type Evidence } from '../src/decision-record.ts';
import { auditDecisionRecord, lookUpEvidence } from '../src/evidence.ts';
import { addLabResult, makeLabsDir } from './fake-labs.ts';

const evidence: Evidence = { lab: '02-fake', checkId: 'reads-at-once-limited', quote: /peak \d+/, shows: 'the limit holds' };
const readsCheck = { id: 'reads-at-once-limited', name: 'At most 2 reads run at once' };

describe('lookUpEvidence', () => {
  it('When the check with that id passed and its observed text holds the figure, Then the quote is found', () => {
    const labsDir = makeLabsDir();
    addLabResult(labsDir, '02-fake', [{ ...readsCheck, ok: true, observed: 'peak 2 of 20 reads' }]);
    expect(lookUpEvidence(labsDir, evidence)).toMatchObject({ found: true, detail: 'lab 02 "peak 2"' });
  });

  it('When the lab never ran its verify, Then the evidence is missing and says so', () => {
    expect(lookUpEvidence(makeLabsDir(), evidence).detail).toContain('no .lab-result.json');
  });

  it('When that check failed, Then it is not evidence', () => {
    const labsDir = makeLabsDir();
    addLabResult(labsDir, '02-fake', [{ ...readsCheck, ok: false, observed: 'peak 3' }]);
    expect(lookUpEvidence(labsDir, evidence)).toMatchObject({ found: false });
  });

  it('When the observed text lacks the figure, Then it is not evidence', () => {
    const labsDir = makeLabsDir();
    addLabResult(labsDir, '02-fake', [{ ...readsCheck, ok: true, observed: 'looked fine' }]);
    expect(lookUpEvidence(labsDir, evidence).detail).toContain('does not contain');
  });

  it('When the check was renamed but kept its id, Then the evidence is still found', () => {
    const labsDir = makeLabsDir();
    addLabResult(labsDir, '02-fake', [{ ...readsCheck, name: 'Reads in flight never pass the limit', ok: true, observed: 'peak 2' }]);
    expect(lookUpEvidence(labsDir, evidence)).toMatchObject({ found: true });
  });

  it('When no check has the id, Then the evidence is missing and the lab\'s ids are listed', () => {
    const labsDir = makeLabsDir();
    addLabResult(labsDir, '02-fake', [{ id: 'queue-bounded', name: 'At most 2 reads run at once', ok: true, observed: 'peak 2' }]);
    expect(lookUpEvidence(labsDir, evidence).detail).toBe('lab 02-fake has no check [reads-at-once-limited]; its checks are queue-bounded');
  });

  it('When the result file was written before checks had ids, Then it asks for a fresh verify', () => {
    const labsDir = makeLabsDir();
    addLabResult(labsDir, '02-fake', [{ name: 'At most 2 reads run at once', ok: true, observed: 'peak 2' }]);
    expect(lookUpEvidence(labsDir, evidence).detail).toContain('predates check ids (run its verify again)');
  });

  it('When the result file is not a verify result, Then the evidence is missing and names the file', () => {
    const labsDir = makeLabsDir();
    mkdirSync(join(labsDir, '02-fake'));
    writeFileSync(join(labsDir, '02-fake', '.lab-result.json'), '{"results": "none"}');
    expect(lookUpEvidence(labsDir, evidence).detail).toMatch(/02-fake\/\.lab-result\.json is not a verify result/);
  });
});

function rowAt(record: DecisionRecord, index: number): DecisionRow {
  const row = record.rows[index];
  if (!row) throw new Error(`the decision record has no row at index ${index}`);
  return row;
}

describe('auditDecisionRecord', () => {
  const labsDir = makeLabsDir();
  addLabResult(labsDir, '02-fake', [{ ...readsCheck, ok: true, observed: 'peak 2' }]);
  const withFakeEvidence = (record: DecisionRecord): DecisionRecord => ({
    ...record,
    rows: record.rows.map((row) => ({ ...row, evidence: [evidence] })),
  });

  it('When all four kinds cite evidence that exists, Then the record passes', () => {
    expect(auditDecisionRecord(withFakeEvidence(DECISION_RECORD), labsDir)).toMatchObject({ ok: true, problems: [] });
  });

  it('When a kind is missing, Then the audit names it', () => {
    const record = withFakeEvidence(DECISION_RECORD);
    record.rows = record.rows.filter((row) => row.kind !== 'blocking-call');
    expect(auditDecisionRecord(record, labsDir).problems).toContain('kind blocking-call appears 0 times (expected once)');
  });

  it('When a kind cites no evidence, Then the audit fails', () => {
    const record = withFakeEvidence(DECISION_RECORD);
    record.rows[0] = { ...rowAt(record, 0), evidence: [] };
    expect(auditDecisionRecord(record, labsDir).problems).toContain('io-wait: cites no evidence');
  });

  it('When two kinds share a placement, Then the record does not tell them apart', () => {
    const record = withFakeEvidence(DECISION_RECORD);
    record.rows[1] = { ...rowAt(record, 1), executor: 'event-loop' };
    expect(auditDecisionRecord(record, labsDir).ok).toBe(false);
  });
});
