// Lesson 07's experiments: each runs the real thing (labs 01-06's verify scripts, the
// message contract, the checker script) and returns what it saw, as typed evidence.
// The checks (checks.ts) judge it. Nothing here decides pass or fail.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { startTsProcess, withResources } from '@tasks-lab/lab-kit';
import { DECISION_RECORD, WORK_KINDS, type DecisionRecord, type WorkKind } from '../src/decision-record.ts';
import { EARLIER_LABS, formatRun, runEarlierLabs, writeEarlierLabsRecord, type EarlierLabsRecord } from '../src/earlier-labs.ts';
import { auditDecisionRecord, type RecordAudit } from '../src/evidence.ts';
import { createMessageCodec, MAX_MESSAGE_BYTES, MessageContractError, type MessageCodec } from '../src/message-contract.ts';
import { EARLIER_LABS_OPTIONS, MESSAGE_CHECK_OPTIONS } from '../src/options.ts';
import { messageOfSize, productAt, sampleMessage } from '../src/sample-messages.ts';

export const LAB_DIR = fileURLToPath(new URL('..', import.meta.url));

export interface ScenarioDeps {
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

export interface RecordReview {
  audit: RecordAudit;
  /** The kinds that decision-record.md names in backticks. */
  kindsInDoc: WorkKind[];
}

export function reviewDecisionRecord(deps: ScenarioDeps): RecordReview {
  const audit = auditDecisionRecord(deps.record ?? DECISION_RECORD, deps.labsDir ?? join(LAB_DIR, '..'));
  const docFile = deps.recordDoc ?? join(LAB_DIR, 'decision-record.md');
  const doc = existsSync(docFile) ? readFileSync(docFile, 'utf8') : '';
  return { audit, kindsInDoc: WORK_KINDS.filter((kind) => doc.includes(`\`${kind}\``)) };
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
  return { fileBytes: bytes.byteLength, fileRefused: refusal(() => codec.decode(bytes)), snapshotProducts: 20, snapshotRefused, snapshotBytes };
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
    ['credentials', { ...base, products: [{ ...productAt(base, 0), credentials: { user: 'shop', password: 'secret' } }] }],
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
}

/** Messages of limit-1 and limit bytes through encode, and one of twice the limit through decode. */
export function probeSizeLimit(deps: ScenarioDeps): SizeProbe {
  const codec = codecOf(deps);
  const big = Buffer.from(JSON.stringify(messageOfSize(2 * MAX_MESSAGE_BYTES)));
  return {
    limit: MAX_MESSAGE_BYTES,
    justUnderRefused: refusal(() => codec.encode(messageOfSize(MAX_MESSAGE_BYTES - 1))),
    atLimitRefused: refusal(() => codec.encode(messageOfSize(MAX_MESSAGE_BYTES))),
    decodedBytes: big.byteLength,
    decodeRefused: refusal(() => codec.decode(big)),
  };
}

/** Prices that are not whole cents (12.5, "1250", -1), then a whole one (1250). */
export function probePrices(deps: ScenarioDeps): { wrong: Attempt[]; whole: Attempt } {
  const codec = codecOf(deps);
  const attempt = (label: string, price: unknown): Attempt => {
    const message = sampleMessage(1);
    return { label, refused: refusal(() => codec.encode({ ...message, products: [{ ...productAt(message, 0), price_cents: price }] })) };
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
    const tooLarge = join(mkdtempSync(join(tmpdir(), 'lab07-')), 'too-large.json');
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
