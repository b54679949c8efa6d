// Lesson 07's learning checks and fault drill. buildChecks(deps) lets the can-fail
// tests swap in a broken contract, a broken decision record or other labs.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { fail, outcome, pass, startTsProcess, type Check } from '@tasks-lab/lab-kit';
import { DECISION_RECORD, WORK_KINDS, type DecisionRecord } from '../src/decision-record.ts';
import { auditDecisionRecord } from '../src/evidence.ts';
import {
  EARLIER_LABS,
  EARLIER_LABS_FILE,
  runEarlierLabs,
  writeEarlierLabsRecord,
  type EarlierLabsRecord,
} from '../src/earlier-labs.ts';
import { createMessageCodec, MAX_MESSAGE_BYTES, MessageContractError, type MessageCodec } from '../src/message-contract.ts';
import { messageOfSize, sampleMessage } from '../src/sample-messages.ts';

const LAB_DIR = fileURLToPath(new URL('..', import.meta.url));

export interface CheckDeps {
  /** The contract under test. @defaultValue the lesson's codec (strict, < 64 KiB) */
  codec?: MessageCodec;
  record?: DecisionRecord;
  /** The markdown twin of the record. @defaultValue decision-record.md in this lab */
  recordDoc?: string;
  /** Where the earlier labs live. @defaultValue labs/ */
  labsDir?: string;
  earlierLabs?: readonly string[];
  /** Where .earlier-labs.json is written. @defaultValue this lab's folder */
  labDir?: string;
  /** The folder holding good.json, with-credentials.json and float-price.json. @defaultValue samples/ */
  samplesDir?: string;
}

export function buildChecks(deps: CheckDeps = {}): Check[] {
  const codec = deps.codec ?? createMessageCodec();
  const labDir = deps.labDir ?? LAB_DIR;
  const labsDir = deps.labsDir ?? join(LAB_DIR, '..');
  const samplesDir = deps.samplesDir ?? join(LAB_DIR, 'samples');
  return [
    earlierLabsCheck(labsDir, labDir, deps.earlierLabs ?? EARLIER_LABS),
    decisionRecordCheck(deps.record ?? DECISION_RECORD, deps.recordDoc ?? join(LAB_DIR, 'decision-record.md'), labsDir),
    queueRuntimeCheck(deps.record ?? DECISION_RECORD),
    validMessageCheck(codec, samplesDir),
    credentialsCheck(codec),
    oversizeCheck(codec),
    floatPriceCheck(codec),
    roundTripCheck(codec),
    checkerScriptDrill(samplesDir),
  ];
}

/** Runs `fn` and returns the MessageContractError it throws, or null when it does not throw. */
function refusal(fn: () => unknown): MessageContractError | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof MessageContractError) return err;
    throw err;
  }
}

function earlierLabsCheck(labsDir: string, labDir: string, labs: readonly string[]): Check {
  return {
    name: 'earlier labs 01-06 ran and passed, recorded in .earlier-labs.json',
    // Six real verify runs, one after another, on a busy 2-core machine.
    timeoutMs: 15 * 60_000,
    run: async () => {
      const runStarted = Number(process.env.TASKS_LAB_RUN_STARTED);
      const record = await runEarlierLabs(labsDir, {
        labs,
        reuseSince: Number.isFinite(runStarted) && runStarted > 0 ? runStarted : undefined,
        onLab: (run) => console.log(`    … lab ${run.lab}: ${run.status} (${run.summary}, ${(run.ms / 1000).toFixed(1)} s)`),
      });
      const file = writeEarlierLabsRecord(labDir, record);
      const saved = JSON.parse(readFileSync(file, 'utf8')) as EarlierLabsRecord;
      const passed = saved.labs.filter((run) => run.status === 'passed');
      const notPassed = saved.labs.filter((run) => run.status !== 'passed').map((run) => `${run.lab} ${run.status}`);
      const ok = saved.labs.length === labs.length && passed.length === labs.length;
      const counts = saved.labs.map((run) => `${run.lab.slice(0, 2)} ${run.passed ?? '?'}/${run.failed ?? '?'}`).join(', ');
      const problems = notPassed.length > 0 ? `; not passed: ${notPassed.join(', ')}` : '';
      return outcome(
        ok,
        `${passed.length} of ${labs.length} labs passed in ${(saved.totalMs / 1000).toFixed(0)} s (passed/failed: ${counts})${problems}; written to ${EARLIER_LABS_FILE}`,
      );
    },
  };
}

function decisionRecordCheck(record: DecisionRecord, recordDoc: string, labsDir: string): Check {
  return {
    name: 'the decision record places four kinds of work, each backed by a measured result',
    run: () => {
      const audit = auditDecisionRecord(record, labsDir);
      const doc = existsSync(recordDoc) ? readFileSync(recordDoc, 'utf8') : '';
      const kindsInDoc = WORK_KINDS.filter((kind) => doc.includes(`\`${kind}\``));
      if (kindsInDoc.length < WORK_KINDS.length) {
        audit.problems.push(`decision-record.md names ${kindsInDoc.length} of ${WORK_KINDS.length} kinds`);
      }
      if (audit.problems.length > 0) return fail(audit.problems.join('; '));
      return pass(audit.lines.join('; '));
    },
  };
}

function queueRuntimeCheck(record: DecisionRecord): Check {
  // Each runtime fact must be written down and say the thing that matters about it.
  const expectations: Array<[keyof DecisionRecord['queue'], RegExp]> = [
    ['broker', /redis/i],
    ['worker', /own .*process/i],
    ['durableState', /mysql/i],
    ['delivery', /at least once/i],
    ['resultCache', /limited time|expire/i],
  ];
  return {
    name: "the task queue's broker, worker, source of truth and delivery guarantee are recorded",
    run: () => {
      const missing = expectations.filter(([field, pattern]) => !pattern.test(record.queue[field] ?? ''));
      if (missing.length > 0) return fail(`missing or vague: ${missing.map(([field, p]) => `${field} (expected ${p})`).join(', ')}`);
      return pass(`broker: ${record.queue.broker.split(',')[0]}; state: ${record.queue.durableState.split(' is ')[0]}; delivery: ${record.queue.delivery.split(':')[0]}`);
    },
  };
}

function validMessageCheck(codec: MessageCodec, samplesDir: string): Check {
  return {
    name: 'a job id plus a product snapshot passes the contract',
    run: () => {
      const file = join(samplesDir, 'good.json');
      const bytes = readFileSync(file);
      const fromFile = refusal(() => codec.decode(bytes));
      if (fromFile) return fail(`good.json refused: ${fromFile.message}`);
      const snapshot = sampleMessage(20);
      const encoded = refusal(() => codec.encode(snapshot));
      if (encoded) return fail(`a 20-product snapshot was refused: ${encoded.message}`);
      const size = codec.encode(snapshot).byteLength;
      return pass(`good.json (${bytes.byteLength} bytes) accepted; a 20-product snapshot encodes to ${size} bytes`);
    },
  };
}

function credentialsCheck(codec: MessageCodec): Check {
  return {
    name: 'a message carrying credentials or a connection object is rejected',
    run: () => {
      const base = sampleMessage(1);
      const smuggled: Array<[string, unknown]> = [
        ['password', { ...base, password: 'hunter2' }],
        ['db_url', { ...base, db_url: 'mysql://shop:secret@127.0.0.1/shop' }],
        ['redis_url', { ...base, redis_url: 'redis://:secret@127.0.0.1:6380' }],
        ['api_key', { ...base, api_key: 'sk-example' }],
        ['credentials', { ...base, products: [{ ...base.products[0], credentials: { user: 'shop', password: 'secret' } }] }],
        ['connection', { ...base, connection: new Socket() }],
      ];
      const accepted: string[] = [];
      const unnamed: string[] = [];
      for (const [field, message] of smuggled) {
        const error = refusal(() => codec.encode(message));
        if (!error) accepted.push(field);
        else if (!error.message.includes(field)) unnamed.push(field);
      }
      const refused = smuggled.length - accepted.length;
      const problems = [
        accepted.length > 0 ? `accepted: ${accepted.join(', ')}` : '',
        unnamed.length > 0 ? `refused without naming the field: ${unnamed.join(', ')}` : '',
      ].filter(Boolean);
      return outcome(
        problems.length === 0,
        `${refused} of ${smuggled.length} refused, each naming the field (${smuggled.map(([f]) => f).join(', ')})${problems.length ? '; ' + problems.join('; ') : ''}`,
      );
    },
  };
}

function oversizeCheck(codec: MessageCodec): Check {
  return {
    name: `a message of ${MAX_MESSAGE_BYTES} bytes or more is rejected, naming its size`,
    run: () => {
      const justUnder = refusal(() => codec.encode(messageOfSize(MAX_MESSAGE_BYTES - 1)));
      const atLimit = refusal(() => codec.encode(messageOfSize(MAX_MESSAGE_BYTES)));
      const bigBytes = Buffer.from(JSON.stringify(messageOfSize(2 * MAX_MESSAGE_BYTES)));
      const decodedBig = refusal(() => codec.decode(bigBytes));
      const problems: string[] = [];
      if (justUnder) problems.push(`${MAX_MESSAGE_BYTES - 1} bytes refused: ${justUnder.message}`);
      if (!atLimit) problems.push(`${MAX_MESSAGE_BYTES} bytes accepted by encode`);
      else if (!atLimit.message.includes(String(MAX_MESSAGE_BYTES))) problems.push(`the error does not name the size: ${atLimit.message}`);
      if (!decodedBig) problems.push(`${bigBytes.byteLength} bytes accepted by decode`);
      if (problems.length > 0) return fail(problems.join('; '));
      return pass(`${MAX_MESSAGE_BYTES - 1} bytes accepted; ${MAX_MESSAGE_BYTES} refused ("${atLimit?.message}"); ${bigBytes.byteLength} bytes refused by decode`);
    },
  };
}

function floatPriceCheck(codec: MessageCodec): Check {
  return {
    name: 'a price that is not a whole number of cents is rejected',
    run: () => {
      const withPrice = (price: unknown) => {
        const message = sampleMessage(1);
        return { ...message, products: [{ ...message.products[0], price_cents: price }] };
      };
      const wrong: Array<[string, unknown]> = [
        ['12.5', 12.5],
        ['"1250"', '1250'],
        ['-1', -1],
      ];
      const accepted = wrong.filter(([, price]) => !refusal(() => codec.encode(withPrice(price)))).map(([label]) => label);
      const whole = refusal(() => codec.encode(withPrice(1250)));
      if (whole) return fail(`1250 was refused: ${whole.message}`);
      if (accepted.length > 0) return fail(`accepted price_cents ${accepted.join(', ')}`);
      const reason = refusal(() => codec.encode(withPrice(12.5)))?.message ?? '';
      return pass(`price_cents 12.5, "1250" and -1 refused ("${reason.split(': ').slice(-1)[0]}"); 1250 accepted`);
    },
  };
}

function roundTripCheck(codec: MessageCodec): Check {
  return {
    name: 'the contract round-trips: decode(encode(m)) equals m, byte for byte',
    run: () => {
      const message = sampleMessage(5);
      // Non-ASCII text makes sure sizes are counted in UTF-8 bytes, not characters.
      message.products[0].name = 'Café mug 咖啡杯 ☕';
      const bytes = codec.encode(message);
      const decoded = codec.decode(bytes);
      const reencoded = codec.encode(decoded);
      const same = isDeepStrictEqual(decoded, message);
      const sameBytes = Buffer.compare(bytes, reencoded) === 0;
      const fromString = isDeepStrictEqual(codec.decode(bytes.toString('utf8')), message);
      return outcome(
        same && sameBytes && fromString,
        `5 products, ${bytes.byteLength} bytes (${JSON.stringify(message).length} characters); equal after decode: ${same}; same bytes after re-encode: ${sameBytes}; decodes from a string: ${fromString}`,
      );
    },
  };
}

function checkerScriptDrill(samplesDir: string): Check {
  return {
    name: 'drill: pnpm check:message accepts good.json and refuses each bad sample with exit 1',
    // Four real processes in a row; each tsx start can take seconds on a busy machine.
    timeoutMs: 3 * 60_000,
    run: async () => {
      const tooLarge = join(mkdtempSync(join(tmpdir(), 'lab07-')), 'too-large.json');
      writeFileSync(tooLarge, JSON.stringify(sampleMessage(800, 80)));
      const cases: Array<{ file: string; exit: number; says: RegExp }> = [
        { file: join(samplesDir, 'good.json'), exit: 0, says: /accepted/ },
        { file: join(samplesDir, 'with-credentials.json'), exit: 1, says: /rejected.*not in the contract/ },
        { file: join(samplesDir, 'float-price.json'), exit: 1, says: /rejected.*price_cents/ },
        { file: tooLarge, exit: 1, says: /rejected.*is \d+ bytes/ },
      ];
      const seen: string[] = [];
      let ok = true;
      for (const { file, exit, says } of cases) {
        const child = startTsProcess(join(LAB_DIR, 'scripts', 'check-message.ts'), { args: [file], cwd: LAB_DIR });
        const { code } = await child.exited;
        const name = file.split('/').slice(-1)[0];
        const right = code === exit && says.test(child.output());
        ok &&= right;
        seen.push(`${name} exit ${code}${right ? '' : ` (expected ${exit}, ${says}; printed: ${child.output().trim()})`}`);
      }
      return outcome(ok, seen.join(', '));
    },
  };
}
