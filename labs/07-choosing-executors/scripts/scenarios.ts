// Lesson 07's experiments: each runs the real thing (labs 01-06's verify scripts, the
// decision record's grader on the reference record and that run, the queue comparison
// beside lab 08's installed BullMQ, the message contract, the checker script) and
// returns what it saw, as typed evidence. The checks (checks.ts) judge it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { startTsProcess, withResources } from '@tasks-lab/lab-kit';
import {
  EARLIER_LABS,
  formatRun,
  runEarlierLabs,
  writeEarlierLabsRecord,
  type EarlierLabsRecord,
} from '../src/earlier-labs.ts';
import { gradeDecisionRecordFile, type RecordGrade } from '../src/evidence.ts';
import {
  createMessageCodec,
  MAX_MESSAGE_BYTES,
  MessageContractError,
  type MessageCodec,
} from '../src/message-contract.ts';
import { EARLIER_LABS_OPTIONS, MESSAGE_CHECK_OPTIONS } from '../src/options.ts';
import { COURSE_QUEUE, QUEUE_COMPARISON, type QueueFacts } from '../src/queue-comparison.ts';
import { messageOfSize, productAt, sampleMessage } from '../src/sample-messages.ts';

export const LAB_DIR = fileURLToPath(new URL('..', import.meta.url));

export interface ScenarioDeps {
  /** The contract under test. @defaultValue the lesson's codec (strict, < 64 KiB) */
  codec?: MessageCodec;
  /** The decision record to grade. @defaultValue the reference, solutions/decision-record.md */
  recordFile?: string;
  /** The queue comparison under test. @defaultValue QUEUE_COMPARISON */
  comparison?: readonly QueueFacts[];
  /** Where the earlier labs live. @defaultValue labs/ */
  labsDir?: string;
  earlierLabs?: readonly string[];
  /** Where .earlier-labs.json is written and read. @defaultValue this lab's folder */
  labDir?: string;
  /** The folder holding good.json, with-credentials.json and float-price.json. @defaultValue samples/ */
  samplesDir?: string;
}

/** The MessageContractError's message when `fn` throws one; undefined when `fn` does not throw. */
function refusal(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof MessageContractError) return err.message;
    throw err;
  }
}

// ------------------------------------------------------------ earlier labs

export interface EarlierLabsRun {
  /** The labs that were asked for. */
  labs: readonly string[];
  /** The record as it was read back from the file written. */
  saved: EarlierLabsRecord;
  file: string;
}

/** Runs labs 01-06's verify scripts one after another and writes .earlier-labs.json. */
export async function rerunEarlierLabs(deps: ScenarioDeps, signal?: AbortSignal): Promise<EarlierLabsRun> {
  const labs = deps.earlierLabs ?? EARLIER_LABS;
  const { labTimeoutMs, reuseRunsSince } = EARLIER_LABS_OPTIONS.read();
  const record = await runEarlierLabs(deps.labsDir ?? join(LAB_DIR, '..'), {
    labs,
    signal,
    timeoutMs: labTimeoutMs,
    reuseSince: reuseRunsSince > 0 ? reuseRunsSince : undefined,
    onLab: (run) => console.log(`    … ${formatRun(run)}`),
  });
  const file = writeEarlierLabsRecord(deps.labDir ?? LAB_DIR, record);
  return { labs, saved: JSON.parse(readFileSync(file, 'utf8')) as EarlierLabsRecord, file };
}

// ------------------------------------------------------------ decision record

export const REFERENCE_RECORD = join(LAB_DIR, 'solutions', 'decision-record.md');

/** Grades the reference decision record against the run recorded in .earlier-labs.json and the labs' results. */
export function gradeReferenceRecord(deps: ScenarioDeps): RecordGrade {
  return gradeDecisionRecordFile(deps.recordFile ?? REFERENCE_RECORD, {
    labsDir: deps.labsDir ?? join(LAB_DIR, '..'),
    labDir: deps.labDir ?? LAB_DIR,
  });
}

// ------------------------------------------------------------ queue comparison

export interface ComparisonReview {
  rows: readonly QueueFacts[];
  /** The version of the course's queue that lab 08 installs (its node_modules), or why it is unknown. */
  installed: { version?: string; problem?: string };
}

/** The comparison table, and the BullMQ version lab 08 really installs, to check the table against. */
export function reviewQueueComparison(deps: ScenarioDeps): ComparisonReview {
  const manifest = join(
    deps.labsDir ?? join(LAB_DIR, '..'),
    '08-broker-worker',
    'node_modules',
    COURSE_QUEUE,
    'package.json',
  );
  let installed: ComparisonReview['installed'];
  try {
    installed = { version: (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version };
  } catch {
    installed = { problem: `${COURSE_QUEUE} is not installed in labs/08-broker-worker (run pnpm install)` };
  }
  return { rows: deps.comparison ?? QUEUE_COMPARISON, installed };
}

// ------------------------------------------------------------ the message contract

const codecOf = (deps: ScenarioDeps) => deps.codec ?? createMessageCodec();

export interface ValidMessageProbe {
  fileBytes: number;
  /** Why good.json was refused, if it was. */
  fileRefused?: string;
  snapshotProducts: number;
  snapshotRefused?: string;
  snapshotBytes?: number;
}

export function probeValidMessage(deps: ScenarioDeps): ValidMessageProbe {
  const codec = codecOf(deps);
  const bytes = readFileSync(join(deps.samplesDir ?? join(LAB_DIR, 'samples'), 'good.json'));
  const snapshot = sampleMessage(20);
  let snapshotBytes: number | undefined;
  const snapshotRefused = refusal(() => (snapshotBytes = codec.encode(snapshot).byteLength));
  return {
    fileBytes: bytes.byteLength,
    fileRefused: refusal(() => codec.decode(bytes)),
    snapshotProducts: 20,
    snapshotRefused,
    snapshotBytes,
  };
}

export interface Attempt {
  label: string;
  /** The refusal's message; undefined when the contract accepted it. */
  refused?: string;
}

/** Six ways to smuggle a secret or a live object into a message, each sent through encode. */
export function probeSmuggledFields(deps: ScenarioDeps): Attempt[] {
  const codec = codecOf(deps);
  const base = sampleMessage(1);
  const smuggled: Array<[string, unknown]> = [
    ['password', { ...base, password: 'hunter2' }],
    ['db_url', { ...base, db_url: 'mysql://shop:secret@127.0.0.1/shop' }],
    ['redis_url', { ...base, redis_url: 'redis://:secret@127.0.0.1:6380' }],
    ['api_key', { ...base, api_key: 'sk-example' }],
    [
      'credentials',
      { ...base, products: [{ ...productAt(base, 0), credentials: { user: 'shop', password: 'secret' } }] },
    ],
    ['connection', { ...base, connection: new Socket() }],
  ];
  return smuggled.map(([label, message]) => ({ label, refused: refusal(() => codec.encode(message)) }));
}

export interface SizeProbe {
  limit: number;
  justUnderRefused?: string;
  atLimitRefused?: string;
  decodedBytes: number;
  decodeRefused?: string;
  /** A message of about 15 MB that also breaks the contract (a float price in its last product). */
  huge: { bytes: number; refusedAs?: string; ms: number };
}

/** About 15 MB: 100,000 products with 60-character descriptions. */
const HUGE_PRODUCTS = 100_000;

/** Why `fn` was refused: the MessageContractError's code; undefined when it was accepted. */
function refusalCode(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof MessageContractError) return err.code;
    throw err;
  }
}

/**
 * Messages of limit-1 and limit bytes through encode, one of twice the limit through
 * decode, and a huge one that is also invalid: its size must be what refuses it.
 */
export function probeSizeLimit(deps: ScenarioDeps): SizeProbe {
  const codec = codecOf(deps);
  const big = Buffer.from(JSON.stringify(messageOfSize(2 * MAX_MESSAGE_BYTES)));
  const huge = sampleMessage(HUGE_PRODUCTS, 60);
  productAt(huge, HUGE_PRODUCTS - 1).price_cents = 12.5;
  const started = performance.now();
  const refusedAs = refusalCode(() => codec.encode(huge));
  const ms = Math.round(performance.now() - started);
  return {
    limit: MAX_MESSAGE_BYTES,
    justUnderRefused: refusal(() => codec.encode(messageOfSize(MAX_MESSAGE_BYTES - 1))),
    atLimitRefused: refusal(() => codec.encode(messageOfSize(MAX_MESSAGE_BYTES))),
    decodedBytes: big.byteLength,
    decodeRefused: refusal(() => codec.decode(big)),
    huge: { bytes: Buffer.byteLength(JSON.stringify(huge)), refusedAs, ms },
  };
}

/** Prices that are not whole cents (12.5, "1250", -1), then a whole one (1250). */
export function probePrices(deps: ScenarioDeps): { wrong: Attempt[]; whole: Attempt } {
  const codec = codecOf(deps);
  const attempt = (label: string, price: unknown): Attempt => {
    const message = sampleMessage(1);
    return {
      label,
      refused: refusal(() =>
        codec.encode({ ...message, products: [{ ...productAt(message, 0), price_cents: price }] }),
      ),
    };
  };
  return { wrong: [attempt('12.5', 12.5), attempt('"1250"', '1250'), attempt('-1', -1)], whole: attempt('1250', 1250) };
}

export interface RoundTrip {
  products: number;
  bytes: number;
  characters: number;
  equalAfterDecode: boolean;
  sameBytesAfterReencode: boolean;
  decodesFromString: boolean;
}

export function probeRoundTrip(deps: ScenarioDeps): RoundTrip {
  const codec = codecOf(deps);
  const message = sampleMessage(5);
  // Non-ASCII text makes sure sizes are counted in UTF-8 bytes, not characters.
  productAt(message, 0).name = 'Café mug 咖啡杯 ☕';
  const bytes = codec.encode(message);
  const decoded = codec.decode(bytes);
  return {
    products: message.products.length,
    bytes: bytes.byteLength,
    characters: JSON.stringify(message).length,
    equalAfterDecode: isDeepStrictEqual(decoded, message),
    sameBytesAfterReencode: Buffer.compare(bytes, codec.encode(decoded)) === 0,
    decodesFromString: isDeepStrictEqual(codec.decode(bytes.toString('utf8')), message),
  };
}

// ------------------------------------------------------------ the checker drill

export interface CheckerRun {
  file: string;
  expectedExit: number;
  /** What the output must say for this file. */
  says: RegExp;
  exit: number | null;
  output: string;
}

/** `pnpm check:message` as a student runs it: one real process per sample file. */
export function runCheckerDrill(deps: ScenarioDeps, signal?: AbortSignal): Promise<CheckerRun[]> {
  return withResources(signal, async (res) => {
    const samplesDir = deps.samplesDir ?? join(LAB_DIR, 'samples');
    // The generated too-large sample lives in the temp dir only while the drill runs.
    const tempDir = mkdtempSync(join(tmpdir(), 'lab07-drill-'));
    res.defer(() => rmSync(tempDir, { recursive: true, force: true }));
    const tooLarge = join(tempDir, 'too-large.json');
    writeFileSync(tooLarge, JSON.stringify(sampleMessage(800, 80)));
    const cases = [
      { file: join(samplesDir, 'good.json'), expectedExit: 0, says: /accepted/ },
      { file: join(samplesDir, 'with-credentials.json'), expectedExit: 1, says: /rejected.*not in the contract/ },
      { file: join(samplesDir, 'float-price.json'), expectedExit: 1, says: /rejected.*price_cents/ },
      { file: tooLarge, expectedExit: 1, says: /rejected.*is \d+ bytes/ },
    ];
    const runs: CheckerRun[] = [];
    for (const c of cases) {
      const child = res.add(
        startTsProcess(join(LAB_DIR, 'scripts', 'check-message.ts'), {
          args: [c.file],
          cwd: LAB_DIR,
          // The contract's own limit, whatever MESSAGE_MAX_BYTES the student's shell has.
          env: MESSAGE_CHECK_OPTIONS.toEnv({ maxMessageBytes: MAX_MESSAGE_BYTES }),
        }),
        (p) => p.kill(),
      );
      const { code } = await child.exited;
      res.throwIfAborted();
      runs.push({ ...c, exit: code, output: child.output().trim() });
    }
    return runs;
  });
}
