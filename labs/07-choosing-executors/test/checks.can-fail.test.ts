// Every key check must be able to fail: each test runs it against a deliberately
// broken variant (a contract without .strict(), a 1 MiB limit, a record missing a
// kind ...) and expects ok: false, next to the healthy variant passing.
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCheck, type Check } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildChecks, type CheckDeps } from '../scripts/checks.ts';
import { DECISION_RECORD, type DecisionRecord, type Evidence } from '../src/decision-record.ts';
import { createMessageCodec, exportMessageSchema, type MessageCodec } from '../src/message-contract.ts';
import { addFakeLab, addLabResult, makeLabsDir, verifyPrinting } from './fake-labs.ts';

const labDir = fileURLToPath(new URL('..', import.meta.url));

async function run(fragment: string, deps: CheckDeps = {}) {
  const check = buildChecks(deps).find((c: Check) => c.name.includes(fragment));
  if (!check) throw new Error(`no check named like "${fragment}"`);
  return runCheck(check);
}

/** The same shape as the contract, but with zod's default object mode: unknown keys are silently dropped. */
const productWithoutStrict = z.object({
  id: z.number().int().positive(),
  name: z.string(),
  description: z.string(),
  is_active: z.boolean(),
  price_cents: z.number().int().nonnegative(),
});
const contractWithoutStrict = z.object({ job_id: z.uuid(), products: z.array(productWithoutStrict).min(1) });

describe('credentials check', () => {
  it('When the contract is strict, Then it passes', async () => {
    expect((await run('credentials')).ok).toBe(true);
  });

  it('When the contract lacks .strict(), Then the credentials check fails', async () => {
    const result = await run('credentials', { codec: createMessageCodec({ schema: contractWithoutStrict }) });
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('accepted: password');
  });
});

describe('oversize check', () => {
  it('When the size limit is 1 MiB instead of 64 KiB, Then the oversize check fails', async () => {
    const result = await run('bytes or more is rejected', { codec: createMessageCodec({ maxBytes: 1024 * 1024 }) });
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('65536 bytes accepted');
  });
});

describe('float price check', () => {
  it('When price_cents accepts any number, Then the float price check fails', async () => {
    const loosePrice = exportMessageSchema.extend({
      products: z.array(productWithoutStrict.extend({ price_cents: z.number() }).strict()).min(1),
    });
    const result = await run('whole number of cents', { codec: createMessageCodec({ schema: loosePrice }) });
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('12.5');
  });
});

describe('valid message check', () => {
  it('When the limit is too small for an ordinary snapshot, Then the valid message check fails', async () => {
    expect((await run('passes the contract', { codec: createMessageCodec({ maxBytes: 100 }) })).ok).toBe(false);
  });
});

describe('round-trip check', () => {
  it('When decode hands back the products in another order, Then the round-trip check fails', async () => {
    const real = createMessageCodec();
    const reordering: MessageCodec = {
      encode: real.encode,
      decode: (input) => {
        const message = real.decode(input);
        return { ...message, products: [...message.products].reverse() };
      },
    };
    expect((await run('round-trips', { codec: reordering })).ok).toBe(false);
  });
});

describe('decision record check', () => {
  // Evidence in a throwaway labs folder, so the test does not depend on labs 01-06 having run.
  const labsDir = makeLabsDir();
  addLabResult(labsDir, '02-fake', [{ name: 'At most 2 reads run at once', ok: true, observed: 'peak 2 of 20' }]);
  const evidence: Evidence = { lab: '02-fake', check: 'reads run at once', quote: /peak \d+/, shows: 'the limit holds' };
  const withEvidence: DecisionRecord = { ...DECISION_RECORD, rows: DECISION_RECORD.rows.map((row) => ({ ...row, evidence: [evidence] })) };

  it('When all four kinds cite evidence that exists, Then it passes', async () => {
    const result = await run('four kinds of work', { record: withEvidence, labsDir });
    expect(result).toMatchObject({ ok: true });
  });

  it('When the record is missing a kind, Then the decision record check fails naming it', async () => {
    const missingDurable = { ...withEvidence, rows: withEvidence.rows.filter((row) => row.kind !== 'durable') };
    const result = await run('four kinds of work', { record: missingDurable, labsDir });
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('durable appears 0 times');
  });

  it('When a cited check failed in its lab, Then the decision record check fails', async () => {
    const failedLabs = makeLabsDir();
    addLabResult(failedLabs, '02-fake', [{ name: 'At most 2 reads run at once', ok: false, observed: 'peak 3 of 20' }]);
    expect((await run('four kinds of work', { record: withEvidence, labsDir: failedLabs })).ok).toBe(false);
  });
});

describe('task queue runtime check', () => {
  it('When the record promises exactly-once delivery, Then the queue runtime check fails', async () => {
    const record = { ...DECISION_RECORD, queue: { ...DECISION_RECORD.queue, delivery: 'exactly once' } };
    const result = await run('delivery guarantee', { record });
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('delivery');
  });
});

// Each fake lab is a real tsx process.
describe('earlier labs check', { timeout: 90_000 }, () => {
  it('When every earlier lab passes, Then it passes and writes .earlier-labs.json', async () => {
    const labsDir = makeLabsDir();
    addFakeLab(labsDir, 'aa-one', verifyPrinting(2, 0));
    addFakeLab(labsDir, 'bb-two', verifyPrinting(3, 0));
    const result = await run('earlier labs', { labsDir, labDir: labsDir, earlierLabs: ['aa-one', 'bb-two'] });
    expect(result).toMatchObject({ ok: true });
  });

  it('When one earlier lab fails a check, Then the earlier labs check fails naming it', async () => {
    const labsDir = makeLabsDir();
    addFakeLab(labsDir, 'aa-one', verifyPrinting(2, 0));
    addFakeLab(labsDir, 'bb-broken', verifyPrinting(2, 1));
    const result = await run('earlier labs', { labsDir, labDir: labsDir, earlierLabs: ['aa-one', 'bb-broken'] });
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('bb-broken failed');
  });

  it('When an earlier lab has no verify script, Then the earlier labs check fails', async () => {
    const labsDir = makeLabsDir();
    addFakeLab(labsDir, 'aa-one', verifyPrinting(2, 0));
    const result = await run('earlier labs', { labsDir, labDir: labsDir, earlierLabs: ['aa-one', 'bb-absent'] });
    expect(result.ok).toBe(false);
  });
});

describe('checker script drill', () => {
  // Four real tsx processes, one after another: slow on a busy 2-core machine.
  it('When the "with credentials" sample carries no credentials, Then the drill fails because the script accepts it', { timeout: 120_000 }, async () => {
    const samplesDir = mkdtempSync(join(tmpdir(), 'lab07-samples-'));
    copyFileSync(join(labDir, 'samples', 'good.json'), join(samplesDir, 'good.json'));
    copyFileSync(join(labDir, 'samples', 'float-price.json'), join(samplesDir, 'float-price.json'));
    copyFileSync(join(labDir, 'samples', 'good.json'), join(samplesDir, 'with-credentials.json'));
    const result = await run('drill', { samplesDir });
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('with-credentials.json exit 0');
  });
});

