// Every check of the lesson, run for real against a deliberately broken part (a contract
// without .strict(), a 1 MiB limit, a codec that validates before it measures, a record
// whose cited value the run did not observe, an incomplete queue comparison, an earlier
// lab that fails, a sample that carries no credentials ...): each must fail.
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { describe } from 'vitest';
import { z } from 'zod';
import { buildChecks } from '../scripts/checks.ts';
import { REFERENCE_RECORD } from '../scripts/scenarios.ts';
import { parseDecisionRecord } from '../src/decision-record.ts';
import { createMessageCodec, exportMessageSchema, type MessageCodec } from '../src/message-contract.ts';
import { QUEUE_COMPARISON, type QueueFacts } from '../src/queue-comparison.ts';
import { addFakeLab, addLabResult, fakeVerify, makeLabsDir, runBacking } from './fake-labs.ts';
import { validateFirstCodec } from './fixtures/validate-first-codec.ts';
import { makeTempDir } from './temp-dirs.ts';

const labDir = fileURLToPath(new URL('..', import.meta.url));

/** The same shape as the contract, but with zod's default object mode: unknown keys are silently dropped. */
const productWithoutStrict = z.object({
  id: z.number().int().positive(),
  name: z.string(),
  description: z.string(),
  is_active: z.boolean(),
  price_cents: z.number().int().nonnegative(),
});
const contractWithoutStrict = z.object({ job_id: z.uuid(), products: z.array(productWithoutStrict).min(1) });
const loosePrice = exportMessageSchema.extend({
  products: z.array(productWithoutStrict.extend({ price_cents: z.number() }).strict()).min(1),
});

/** Hands back the products in another order after decoding. */
function reorderingCodec(): MessageCodec {
  const real = createMessageCodec();
  return {
    encode: real.encode,
    decode: (input) => {
      const message = real.decode(input);
      return { ...message, products: [...message.products].reverse() };
    },
  };
}

const referenceRecord = () => parseDecisionRecord(readFileSync(REFERENCE_RECORD, 'utf8'));

/** The lesson's comparison with one queue's facts changed. */
function comparisonWith(pkg: string, change: Partial<QueueFacts>): QueueFacts[] {
  return QUEUE_COMPARISON.map((row) => (row.package === pkg ? { ...row, ...change } : row));
}

describe('checks can fail', () => {
  const suite = canFailSuite(buildChecks);

  // Each fake lab is a real tsx process running lab-kit's runVerify.
  suite.breaks(
    'earlier-labs-passed',
    'one earlier lab fails a check',
    () => {
      const labsDir = makeLabsDir();
      addFakeLab(labsDir, 'aa-one', fakeVerify(2, 0));
      addFakeLab(labsDir, 'bb-broken', fakeVerify(2, 1));
      return { labsDir, labDir: labsDir, earlierLabs: ['aa-one', 'bb-broken'] };
    },
    { observed: /not passed: bb-broken failed \[fake-1\]/, timeoutMs: 120_000 },
  );
  suite.breaks(
    'earlier-labs-passed',
    'an earlier lab has no verify script',
    () => {
      const labsDir = makeLabsDir();
      addFakeLab(labsDir, 'aa-one', fakeVerify(1, 0));
      return { labsDir, labDir: labsDir, earlierLabs: ['aa-one', 'bb-absent'] };
    },
    { observed: /bb-absent missing/, timeoutMs: 120_000 },
  );
  // The reference record graded against a recorded run (throwaway labs folder) that does not back it.
  suite.breaks(
    'decision-record-backed',
    'the record cites a value the recorded run did not observe',
    () =>
      runBacking(referenceRecord(), (checkId, value) =>
        checkId === 'restart-forgets-jobs' ? 'GET old id -> 200' : value,
      ),
    {
      observed:
        /durable: lab 01-fake check \[restart-forgets-jobs\] observed .*GET old id -> 200.*which does not contain "GET old id -> 404"/,
    },
  );
  suite.breaks(
    'decision-record-backed',
    'a cited check failed in the recorded run',
    () => {
      const run = runBacking(referenceRecord());
      addLabResult(run.labsDir, '02-fake', [
        { id: 'reads-at-once-limited', name: 'limit', ok: false, observed: 'peak reads in flight 2 (limit 2)' },
        { id: 'queue-bounded', name: 'queue', ok: true, observed: 'longest queue 4 (capacity 4)' },
      ]);
      return run;
    },
    { observed: /check \[reads-at-once-limited\] failed in your run/ },
  );
  suite.breaks(
    'queue-comparison-complete',
    "bee-queue's result retention is left out",
    () => ({
      comparison: comparisonWith('bee-queue', { resultRetention: { says: '', source: 'bee-queue@2.0.0 README.md' } }),
    }),
    { observed: /bee-queue: resultRetention is empty/ },
  );
  suite.breaks(
    'queue-comparison-complete',
    'the table describes another BullMQ than the one lab 08 installs',
    () => ({ comparison: comparisonWith('bullmq', { version: '5.0.0' }) }),
    { observed: /the table describes bullmq 5\.0\.0, lab 08 installs/ },
  );
  suite.breaks(
    'valid-message-accepted',
    'the limit is too small for an ordinary snapshot',
    () => ({ codec: createMessageCodec({ maxBytes: 100 }) }),
    {
      observed: /refused/,
    },
  );
  suite.breaks(
    'credentials-refused',
    'the contract lacks .strict()',
    () => ({ codec: createMessageCodec({ schema: contractWithoutStrict }) }),
    {
      observed: /accepted: password/,
    },
  );
  suite.breaks(
    'oversize-refused',
    'the size limit is 1 MiB instead of 64 KiB',
    () => ({ codec: createMessageCodec({ maxBytes: 1024 * 1024 }) }),
    {
      observed: /65536 bytes accepted/,
    },
  );
  suite.breaks(
    'oversize-refused',
    'the codec validates a message before it measures it',
    () => ({ codec: validateFirstCodec() }),
    {
      observed: /refused as invalid-message .*its size was not checked first/,
    },
  );
  suite.breaks(
    'float-price-refused',
    'price_cents accepts any number',
    () => ({ codec: createMessageCodec({ schema: loosePrice }) }),
    {
      observed: /accepted price_cents 12\.5/,
    },
  );
  suite.breaks(
    'round-trip-exact',
    'decode hands back the products in another order',
    () => ({ codec: reorderingCodec() }),
    {
      observed: /equal after decode: false/,
    },
  );
  // Four real tsx processes, one after another: slow on a busy 2-core machine.
  suite.breaks(
    'checker-script-drill',
    'the "with credentials" sample carries no credentials',
    () => {
      const samplesDir = makeTempDir('samples');
      copyFileSync(join(labDir, 'samples', 'good.json'), join(samplesDir, 'good.json'));
      copyFileSync(join(labDir, 'samples', 'float-price.json'), join(samplesDir, 'float-price.json'));
      copyFileSync(join(labDir, 'samples', 'good.json'), join(samplesDir, 'with-credentials.json'));
      return { samplesDir };
    },
    { observed: /with-credentials\.json exit 0/, timeoutMs: 180_000 },
  );
  suite.coversEveryCheck();
});
