// Product snapshots for the checks, the tests and the too-large sample generator.
import { randomUUID } from 'node:crypto';
import type { ExportMessage, ProductSnapshot } from './message-contract.ts';

export function sampleProduct(id: number, descriptionLength = 20): ProductSnapshot {
  return {
    id,
    name: `Product ${id}`,
    description: 'd'.repeat(descriptionLength),
    is_active: id % 2 === 1,
    price_cents: id * 100 + 99,
  };
}

/** A valid message (apart from its size) with `count` products. */
export function sampleMessage(count = 3, descriptionLength = 20): ExportMessage {
  return {
    job_id: randomUUID(),
    products: Array.from({ length: count }, (_, i) => sampleProduct(i + 1, descriptionLength)),
  };
}

/** The product at `index` of a message; throws naming the index if there is none. */
export function productAt(message: ExportMessage, index: number): ProductSnapshot {
  const product = message.products[index];
  if (!product) throw new Error(`the message has no product at index ${index} (it has ${message.products.length})`);
  return product;
}

/** The JSON UTF-8 size of a value, as encodeMessage would produce it. */
export function encodedSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/**
 * A one-product message whose encoding is exactly `bytes` long: the description is
 * padded with ASCII (one byte per character) until the total matches.
 */
export function messageOfSize(bytes: number): ExportMessage {
  const message = sampleMessage(1, 0);
  const padding = bytes - encodedSize(message);
  if (padding < 0) throw new Error(`a message cannot be as small as ${bytes} bytes`);
  productAt(message, 0).description = 'x'.repeat(padding);
  return message;
}
