// The other half of the can-fail proof: with healthy parts (throwaway folders where a
// recorded run is needed, so these do not depend on labs 01-06 having run) the same
// checks pass.
import { readFileSync } from 'node:fs';
import { findCheck, runCheck } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { buildChecks, type CheckDeps } from '../scripts/checks.ts';
import { REFERENCE_RECORD } from '../scripts/scenarios.ts';
import { parseDecisionRecord } from '../src/decision-record.ts';
import { addFakeLab, fakeVerify, makeLabsDir, runBacking } from './fake-labs.ts';

const run = (id: string, deps: CheckDeps) => runCheck(findCheck(buildChecks(deps), id));

describe('checks with healthy parts', () => {
  it('When a recorded run backs every value the reference record cites, Then the decision record check passes', async () => {
    const fakeRun = runBacking(parseDecisionRecord(readFileSync(REFERENCE_RECORD, 'utf8')));
    const result = await run('decision-record-backed', fakeRun);
    expect(result).toMatchObject({ ok: true });
    expect(result.observed).toContain(
      'durable -> separate-process/task-queue [lab 01 [restart-forgets-jobs] "GET old id -> 404"',
    );
  });

  it("When the comparison is the lesson's and lab 08 installs the BullMQ it describes, Then the comparison check passes", async () => {
    const result = await run('queue-comparison-complete', {});
    expect(result).toMatchObject({ ok: true });
    expect(result.observed).toMatch(/^bullmq (\S+), graphile-worker .*; bullmq \1 is what lab 08 installs/);
  });

  it('When every earlier lab passes, Then the earlier labs check passes and writes .earlier-labs.json', {
    timeout: 120_000,
  }, async () => {
    const labsDir = makeLabsDir();
    addFakeLab(labsDir, 'aa-one', fakeVerify(2, 0));
    addFakeLab(labsDir, 'bb-two', fakeVerify(3, 0));
    const result = await run('earlier-labs-passed', { labsDir, labDir: labsDir, earlierLabs: ['aa-one', 'bb-two'] });
    expect(result).toMatchObject({ ok: true });
    expect(result.observed).toMatch(/^2 of 2 labs passed .*\(passed\/failed: aa 2\/0, bb 3\/0\)/);
  });
});
