// The other half of the can-fail proof: with healthy parts (in throwaway folders, so
// these do not depend on labs 01-06 having run) the same checks pass.
import { findCheck, runCheck } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { buildChecks, type CheckDeps } from '../scripts/checks.ts';
import { DECISION_RECORD, type Evidence } from '../src/decision-record.ts';
import { addFakeLab, addLabResult, fakeVerify, makeLabsDir } from './fake-labs.ts';

const run = (id: string, deps: CheckDeps) => runCheck(findCheck(buildChecks(deps), id));

describe('checks with healthy parts', () => {
  it('When all four kinds cite evidence that exists, Then the decision record check passes', async () => {
    const labsDir = makeLabsDir();
    addLabResult(labsDir, '02-fake', [{ id: 'reads-at-once-limited', name: 'At most 2 reads run at once', ok: true, observed: 'peak 2 of 20' }]);
    const evidence: Evidence = { lab: '02-fake', checkId: 'reads-at-once-limited', quote: /peak \d+/, shows: 'the limit holds' };
    const record = { ...DECISION_RECORD, rows: DECISION_RECORD.rows.map((row) => ({ ...row, evidence: [evidence] })) };
    expect(await run('decision-record-backed', { record, labsDir })).toMatchObject({ ok: true });
  });

  it('When every earlier lab passes, Then the earlier labs check passes and writes .earlier-labs.json', { timeout: 120_000 }, async () => {
    const labsDir = makeLabsDir();
    addFakeLab(labsDir, 'aa-one', fakeVerify(2, 0));
    addFakeLab(labsDir, 'bb-two', fakeVerify(3, 0));
    const result = await run('earlier-labs-passed', { labsDir, labDir: labsDir, earlierLabs: ['aa-one', 'bb-two'] });
    expect(result).toMatchObject({ ok: true });
    expect(result.observed).toMatch(/^2 of 2 labs passed .*\(passed\/failed: aa 2\/0, bb 3\/0\)/);
  });
});
