// The message contract: what one export job puts on a task queue (lesson 08 onwards).
// A message carries the business job id and a small, frozen snapshot of the products,
// nothing else: no passwords, connection strings or live objects. It is JSON (any
// process in any language can read it), it validates on the way out and on the way
// in, and it stays under 64 KiB so a broker never holds a bulky payload.
import { CodedError, errorMessage } from '@tasks-lab/lab-kit';
import { z } from 'zod';

/** The encoded message must be strictly smaller than this many bytes (64 KiB). */
export const MAX_MESSAGE_BYTES = 64 * 1024;

export const productSnapshotSchema = z
  .object({
    id: z.number().int().positive(),
    name: z.string(),
    description: z.string(),
    is_active: z.boolean(),
    // Money in whole cents: a float such as 12.5 is rejected, so no rounding surprises later.
    price_cents: z
      .number()
      .int({ error: 'price_cents must be a whole number of cents (no floats for money)' })
      .nonnegative(),
  })
  // Strict: a field the contract does not name (password, db_url, api_key ...) is an error, not a passenger.
  .strict();
export type ProductSnapshot = z.infer<typeof productSnapshotSchema>;

export const exportMessageSchema = z
  .object({
    job_id: z.uuid(),
    products: z.array(productSnapshotSchema).min(1, 'an export message carries at least one product'),
  })
  .strict();
export type ExportMessage = z.infer<typeof exportMessageSchema>;

export type MessageProblem = 'invalid-json' | 'invalid-message' | 'too-large';

/**
 * Why a message was refused; `message` names the field or the size. `code` (and its
 * older name `problem`) says which kind of refusal it is, for code that acts on it.
 */
export class MessageContractError extends CodedError {
  readonly problem: MessageProblem;

  constructor(
    problem: MessageProblem,
    message: string,
    readonly issues: string[] = [],
  ) {
    super(problem, message);
    this.problem = problem;
  }
}

export interface MessageCodec {
  /** Checks the size, then validates, then returns the UTF-8 JSON bytes; throws MessageContractError. */
  encode(message: unknown): Buffer;
  /** Checks the size, parses and validates; throws MessageContractError. */
  decode(input: Uint8Array | string): ExportMessage;
}

export interface CodecOptions {
  /** The schema to validate against. @defaultValue exportMessageSchema */
  schema?: z.ZodType<ExportMessage>;
  /** Encoded messages must be smaller than this. @defaultValue MAX_MESSAGE_BYTES */
  maxBytes?: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function createMessageCodec(options: CodecOptions = {}): MessageCodec {
  const schema = options.schema ?? exportMessageSchema;
  const maxBytes = options.maxBytes ?? MAX_MESSAGE_BYTES;

  const validate = (value: unknown): ExportMessage => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues.map(describeIssue);
    throw new MessageContractError('invalid-message', `the message breaks the contract: ${issues.join('; ')}`, issues);
  };

  const tooLarge = (size: string) =>
    new MessageContractError(
      'too-large',
      `the message is ${size} bytes; it must be smaller than ${maxBytes} bytes (${formatKiB(maxBytes)})`,
    );

  const checkSize = (bytes: number): void => {
    if (bytes >= maxBytes) throw tooLarge(String(bytes));
  };

  return {
    encode(message) {
      // Size first: a 15 MB message is refused after its first 64 KiB, before the
      // schema walks all of it (validating that much takes 100-200 ms here).
      const json = serializeWithin(message, maxBytes);
      if (json === TOO_LARGE) throw tooLarge(`at least ${maxBytes}`);
      if (json !== NOT_JSON) checkSize(Buffer.byteLength(json, 'utf8'));
      // Validation names the field JSON could not hold (a socket, a BigInt) or the contract refuses.
      const valid = validate(message);
      // Serialised again from the validated copy, so the bytes list the fields in the schema's order.
      return Buffer.from(JSON.stringify(valid), 'utf8');
    },
    decode(input) {
      const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
      // Size first: an oversized message is refused before we spend time parsing it.
      checkSize(bytes.byteLength);
      return validate(parseJson(bytes));
    },
  };
}

const TOO_LARGE = Symbol('too large');
const NOT_JSON = Symbol('not JSON');

/**
 * The message as JSON text, or TOO_LARGE as soon as that text is certain to reach
 * `maxBytes`. JSON.stringify calls the replacer for every key and value it writes;
 * the replacer adds up what the output holds at least (each object key and each
 * string, in UTF-8 bytes, with their quotes) and stops the serialisation once that
 * reaches the limit, so an oversized message costs about `maxBytes` of work, not its
 * whole size. NOT_JSON when JSON cannot hold the value at all (a cycle, a BigInt).
 */
function serializeWithin(message: unknown, maxBytes: number): string | typeof TOO_LARGE | typeof NOT_JSON {
  let atLeast = 0;
  function count(this: unknown, key: string, value: unknown): unknown {
    const written = value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
    if (written) {
      const inObject = key !== '' && !Array.isArray(this);
      if (inObject) atLeast += Buffer.byteLength(key, 'utf8') + 3; // "key":
      if (typeof value === 'string') atLeast += Buffer.byteLength(value, 'utf8') + 2;
      if (atLeast >= maxBytes) throw TOO_LARGE;
    }
    return value;
  }
  try {
    return JSON.stringify(message, count) ?? NOT_JSON;
  } catch (err) {
    if (err === TOO_LARGE) return TOO_LARGE;
    return NOT_JSON;
  }
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch (err) {
    throw new MessageContractError('invalid-json', `the message is not UTF-8 JSON: ${errorMessage(err)}`);
  }
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.length > 0 ? issue.path.join('.') : '(message)';
  if (issue.code === 'unrecognized_keys') {
    return `${path}: field(s) not in the contract: ${issue.keys.join(', ')}`;
  }
  return `${path}: ${issue.message}`;
}

function formatKiB(bytes: number): string {
  return `${Math.round((bytes / 1024) * 100) / 100} KiB`;
}

const defaultCodec = createMessageCodec();

/** Encodes with the lesson's contract: strict schema, smaller than 64 KiB. */
export const encodeMessage = (message: unknown): Buffer => defaultCodec.encode(message);

/** Decodes with the lesson's contract: the same checks as encodeMessage, size first. */
export const decodeMessage = (input: Uint8Array | string): ExportMessage => defaultCodec.decode(input);
