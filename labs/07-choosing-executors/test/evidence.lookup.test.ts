import { describe, expect, it } from 'vitest';
import { DECISION_RECORD, type DecisionRecord, type Evidence } from '../src/decision-record.ts';
import { auditDecisionRecord, lookUpEvidence } from '../src/evidence.ts';
import { addLabResult, makeLabsDir } from './fake-labs.ts';

const evidence: Evidence = { lab: '02-fake', check: 'reads run at once', quote: /peak \d+/, shows: 'the limit holds' };

describe('lookUpEvidence', () => {
  it('When the named check passed and its observed text holds the figure, Then the quote is found', () => {
    const labsDir = makeLabsDir();
    addLabResult(labsDir, '02-fake', [{ name: 'At most 2 reads run at once', ok: true, observed: 'peak 2 of 20 reads' }]);
    expect(lookUpEvidence(labsDir, evidence)).toMatchObject({ found: true, detail: 'lab 02 "peak 2"' });
  });

  it('When the lab never ran its verify, Then the evidence is missing and says so', () => {
    expect(lookUpEvidence(makeLabsDir(), evidence).detail).toContain('no .lab-result.json');
  });

  it('When the named check failed, Then it is not evidence', () => {
    const labsDir = makeLabsDir();
    addLabResult(labsDir, '02-fake', [{ name: 'At most 2 reads run at once', ok: false, observed: 'peak 3' }]);
    expect(lookUpEvidence(labsDir, evidence)).toMatchObject({ found: false });
  });

  it('When the observed text lacks the figure, Then it is not evidence', () => {
    const labsDir = makeLabsDir();
    addLabResult(labsDir, '02-fake', [{ name: 'At most 2 reads run at once', ok: true, observed: 'looked fine' }]);
    expect(lookUpEvidence(labsDir, evidence).detail).toContain('does not contain');
  });
});

describe('auditDecisionRecord', () => {
  const labsDir = makeLabsDir();
  addLabResult(labsDir, '02-fake', [{ name: 'At most 2 reads run at once', ok: true, observed: 'peak 2' }]);
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
    record.rows[0] = { ...record.rows[0], evidence: [] };
    expect(auditDecisionRecord(record, labsDir).problems).toContain('io-wait: cites no evidence');
  });

  it('When two kinds share a placement, Then the record does not tell them apart', () => {
    const record = withFakeEvidence(DECISION_RECORD);
    record.rows[1] = { ...record.rows[1], executor: 'event-loop' };
    expect(auditDecisionRecord(record, labsDir).ok).toBe(false);
  });
});
