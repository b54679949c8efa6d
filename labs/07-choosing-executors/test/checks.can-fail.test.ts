// Every check of the lesson, run for real against a deliberately broken part (a contract
// without .strict(), a 1 MiB limit, a record missing a kind, an earlier lab that fails,
// a sample that carries no credentials ...): each must fail.
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { describe } from 'vitest';
import { z } from 'zod';
import { buildChecks } from '../scripts/checks.ts';
import { DECISION_RECORD, type DecisionRecord, type Evidence } from '../src/decision-record.ts';
import { createMessageCodec, exportMessageSchema, type MessageCodec } from '../src/message-contract.ts';
import { addFakeLab, addLabResult, fakeVerify, makeLabsDir } from './fake-labs.ts';

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

/** Evidence in a throwaway labs folder, so the record check does not depend on labs 01-06 having run. */
function recordCitingFakeLab(passed: boolean): { record: DecisionRecord; labsDir: string } {
  const labsDir = makeLabsDir();
  addLabResult(labsDir, '02-fake', [{ id: 'reads-at-once-limited', name: 'At most 2 reads run at once', ok: passed, observed: 'peak 2 of 20' }]);
  const evidence: Evidence = { lab: '02-fake', checkId: 'reads-at-once-limited', quote: /peak \d+/, shows: 'the limit holds' };
  return { record: { ...DECISION_RECORD, rows: DECISION_RECORD.rows.map((row) => ({ ...row, evidence: [evidence] })) }, labsDir };
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
  suite.breaks(
    'decision-record-backed',
    'the record is missing the durable kind',
    () => {
      const { record, labsDir } = recordCitingFakeLab(true);
      return { record: { ...record, rows: record.rows.filter((row) => row.kind !== 'durable') }, labsDir };
    },
    { observed: /kind durable appears 0 times/ },
  );
  suite.breaks('decision-record-backed', 'a cited check failed in its lab', () => recordCitingFakeLab(false), {
    observed: /check \[reads-at-once-limited\] failed/,
  });
  suite.breaks(
    'queue-runtime-recorded',
    'the record promises exactly-once delivery',
    () => ({ record: { ...DECISION_RECORD, queue: { ...DECISION_RECORD.queue, delivery: 'exactly once' } } }),
    { observed: /missing or vague: delivery/ },
  );
  suite.breaks('valid-message-accepted', 'the limit is too small for an ordinary snapshot', () => ({ codec: createMessageCodec({ maxBytes: 100 }) }), {
    observed: /refused/,
  });
  suite.breaks('credentials-refused', 'the contract lacks .strict()', () => ({ codec: createMessageCodec({ schema: contractWithoutStrict }) }), {
    observed: /accepted: password/,
  });
  suite.breaks('oversize-refused', 'the size limit is 1 MiB instead of 64 KiB', () => ({ codec: createMessageCodec({ maxBytes: 1024 * 1024 }) }), {
    observed: /65536 bytes accepted/,
  });
  suite.breaks('float-price-refused', 'price_cents accepts any number', () => ({ codec: createMessageCodec({ schema: loosePrice }) }), {
    observed: /accepted price_cents 12\.5/,
  });
  suite.breaks('round-trip-exact', 'decode hands back the products in another order', () => ({ codec: reorderingCodec() }), {
    observed: /equal after decode: false/,
  });
  // Four real tsx processes, one after another: slow on a busy 2-core machine.
  suite.breaks(
    'checker-script-drill',
    'the "with credentials" sample carries no credentials',
    () => {
      const samplesDir = mkdtempSync(join(tmpdir(), 'lab07-samples-'));
      copyFileSync(join(labDir, 'samples', 'good.json'), join(samplesDir, 'good.json'));
      copyFileSync(join(labDir, 'samples', 'float-price.json'), join(samplesDir, 'float-price.json'));
      copyFileSync(join(labDir, 'samples', 'good.json'), join(samplesDir, 'with-credentials.json'));
      return { samplesDir };
    },
    { observed: /with-credentials\.json exit 0/, timeoutMs: 180_000 },
  );
  suite.coversEveryCheck();
});
