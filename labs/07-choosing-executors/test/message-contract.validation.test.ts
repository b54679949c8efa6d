import { describe, expect, it } from 'vitest';
import {
  createMessageCodec,
  decodeMessage,
  encodeMessage,
  MAX_MESSAGE_BYTES,
  MessageContractError,
  type ExportMessage,
  type MessageCodec,
} from '../src/message-contract.ts';
import { encodedSize, messageOfSize, productAt, sampleMessage } from '../src/sample-messages.ts';
import { validateFirstCodec } from './fixtures/validate-first-codec.ts';

function refusalOf(fn: () => unknown): MessageContractError {
  try {
    fn();
  } catch (err) {
    if (err instanceof MessageContractError) return err;
    throw err;
  }
  throw new Error('expected a MessageContractError, but nothing was thrown');
}

describe('encodeMessage / decodeMessage', () => {
  it('When a job id and a product snapshot are encoded, Then the result is UTF-8 JSON that decodes to the same message', () => {
    const message = sampleMessage(3);
    const bytes = encodeMessage(message);
    expect(JSON.parse(bytes.toString('utf8'))).toEqual(message);
    expect(decodeMessage(bytes)).toEqual(message);
  });

  it('When the job id is not a UUID, Then the message is refused naming job_id [test:job-id-must-be-uuid]', () => {
    const error = refusalOf(() => encodeMessage({ ...sampleMessage(1), job_id: 'job-1' }));
    expect(error.problem).toBe('invalid-message');
    expect(error.message).toContain('job_id');
  });

  it('When a message is refused, Then the error has a stable code (the same as its problem) and its own name', () => {
    const error = refusalOf(() => decodeMessage('{"job_id":'));
    expect(error).toMatchObject({ code: 'invalid-json', problem: 'invalid-json', name: 'MessageContractError' });
  });

  it('When the product list is empty, Then the message is refused', () => {
    expect(refusalOf(() => encodeMessage({ ...sampleMessage(1), products: [] })).message).toContain(
      'at least one product',
    );
  });

  it('When a product field is missing, Then the message is refused naming the path', () => {
    const message = sampleMessage(1);
    const { is_active: _dropped, ...product } = productAt(message, 0);
    const error = refusalOf(() => encodeMessage({ ...message, products: [product] }));
    expect(error.message).toContain('products.0.is_active');
  });

  it.each(['password', 'db_url', 'redis_url', 'api_key'])(
    'When the message carries %s, Then it is refused naming the field',
    (field) => {
      const error = refusalOf(() => encodeMessage({ ...sampleMessage(1), [field]: 'secret' }));
      expect(error.message).toContain(field);
      expect(error.message).not.toContain('secret');
    },
  );

  it('When a product carries an unknown field, Then nested objects are strict too', () => {
    const message = sampleMessage(1);
    const error = refusalOf(() =>
      encodeMessage({ ...message, products: [{ ...message.products[0], credentials: {} }] }),
    );
    expect(error.message).toContain('products.0');
    expect(error.message).toContain('credentials');
  });

  it.each([12.5, -1, '1250', Number.NaN])('When price_cents is %s, Then the message is refused', (price) => {
    const message = sampleMessage(1);
    const error = refusalOf(() =>
      encodeMessage({ ...message, products: [{ ...message.products[0], price_cents: price }] }),
    );
    expect(error.message).toContain('price_cents');
  });

  it('When the encoding is one byte under 64 KiB, Then it passes; at exactly 64 KiB it is refused with its size', () => {
    expect(encodeMessage(messageOfSize(MAX_MESSAGE_BYTES - 1)).byteLength).toBe(MAX_MESSAGE_BYTES - 1);
    const error = refusalOf(() => encodeMessage(messageOfSize(MAX_MESSAGE_BYTES)));
    expect(error.problem).toBe('too-large');
    expect(error.message).toContain(`${MAX_MESSAGE_BYTES} bytes`);
  });

  it('When size is measured, Then it counts UTF-8 bytes, not characters', () => {
    const message = messageOfSize(MAX_MESSAGE_BYTES - 10);
    // Four 3-byte characters replace four 1-byte ones: +8 bytes, still 2 under the limit.
    const product = productAt(message, 0);
    product.description = product.description.slice(4) + '咖啡咖啡';
    expect(encodedSize(message)).toBe(MAX_MESSAGE_BYTES - 2);
    expect(() => encodeMessage(message)).not.toThrow();
    product.description = product.description.slice(1) + '咖';
    expect(refusalOf(() => encodeMessage(message)).problem).toBe('too-large');
  });

  it('When decode gets oversized bytes, Then it refuses them by size before parsing', () => {
    const notEvenJson = Buffer.alloc(MAX_MESSAGE_BYTES, 'x');
    expect(refusalOf(() => decodeMessage(notEvenJson)).problem).toBe('too-large');
  });

  it('When decode gets bytes that are not JSON or not UTF-8, Then it says invalid-json', () => {
    expect(refusalOf(() => decodeMessage('{"job_id":')).problem).toBe('invalid-json');
    expect(refusalOf(() => decodeMessage(Buffer.from([0x7b, 0xff, 0x7d]))).problem).toBe('invalid-json');
  });

  it('When a codec has a smaller limit, Then its error names that limit', () => {
    const codec = createMessageCodec({ maxBytes: 1024 });
    expect(refusalOf(() => codec.encode(sampleMessage(20))).message).toContain('1024 bytes (1 KiB)');
  });
});

/** About 15 MB: 100,000 products whose reads are counted (JSON.stringify and zod both read each one's name). */
function hugeMessage(): { message: ExportMessage; productsRead: () => number } {
  const message = sampleMessage(100_000, 60);
  const read = new Set<number>();
  message.products.forEach((product, index) => {
    const { name } = product;
    Object.defineProperty(product, 'name', { enumerable: true, get: () => (read.add(index), name) });
  });
  return { message, productsRead: () => read.size };
}

describe('encode: the size comes first', () => {
  it('When a huge message also breaks the contract, Then it is refused for its size, as the validate-first codec is not [test:size-before-validation]', () => {
    const message = sampleMessage(100_000, 60);
    productAt(message, 99_999).price_cents = 12.5;
    const refusedAs = (codec: MessageCodec) => refusalOf(() => codec.encode(message)).code;
    expect(refusedAs(createMessageCodec())).toBe('too-large');
    expect(refusedAs(validateFirstCodec())).toBe('invalid-message');
  });

  it('When a 15 MB message is encoded, Then it is refused with the size error after reading under 1% of it, where validating first reads all of it [test:big-message-refused-fast]', () => {
    const lesson = hugeMessage();
    const error = refusalOf(() => encodeMessage(lesson.message));
    expect(error.code).toBe('too-large');
    expect(error.message).toBe(
      `the message is at least ${MAX_MESSAGE_BYTES} bytes; it must be smaller than ${MAX_MESSAGE_BYTES} bytes (64 KiB)`,
    );
    expect(lesson.productsRead()).toBeLessThan(1_000);

    const validatingFirst = hugeMessage();
    expect(refusalOf(() => validateFirstCodec().encode(validatingFirst.message)).code).toBe('too-large');
    expect(validatingFirst.productsRead()).toBe(100_000);
  });

  it('When a message holds something JSON cannot write, Then validation still names the field', () => {
    const error = refusalOf(() => encodeMessage({ ...sampleMessage(1), total: 10n }));
    expect(error.code).toBe('invalid-message');
    expect(error.message).toContain('total');
  });
});
