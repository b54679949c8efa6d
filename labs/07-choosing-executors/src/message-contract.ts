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
  /** Validates, then returns the UTF-8 JSON bytes; throws MessageContractError. */
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

  const checkSize = (bytes: number): void => {
    if (bytes >= maxBytes) {
      throw new MessageContractError(
        'too-large',
        `the message is ${bytes} bytes; it must be smaller than ${maxBytes} bytes (${formatKiB(maxBytes)})`,
      );
    }
  };

  return {
    encode(message) {
      const bytes = Buffer.from(JSON.stringify(validate(message)), 'utf8');
      checkSize(bytes.byteLength);
      return bytes;
    },
    decode(input) {
      const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
      // Size first: an oversized message is refused before we spend time parsing it.
      checkSize(bytes.byteLength);
      return validate(parseJson(bytes));
    },
  };
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

/** Decodes with the lesson's contract; the same checks as encodeMessage, in reverse order. */
export const decodeMessage = (input: Uint8Array | string): ExportMessage => defaultCodec.decode(input);
