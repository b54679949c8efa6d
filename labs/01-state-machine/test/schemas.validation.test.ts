import { describe, expect, it } from 'vitest';
import { AppError } from '../src/app-error.ts';
import { MAX_PRODUCTS_PER_EXPORT, parseExportRequest, parseJobId, toJobResponse } from '../src/schemas.ts';
import { MemoryJobStore } from '../src/store.ts';

function rejection(body: unknown): AppError {
  try {
    parseExportRequest(body);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
}

describe('schemas: parseExportRequest', () => {
  it('When the body has 1 to 100 positive integer ids, Then it is accepted as given', () => {
    expect(parseExportRequest({ product_ids: [1, 2] })).toEqual({ product_ids: [1, 2] });
    const hundred = Array.from({ length: MAX_PRODUCTS_PER_EXPORT }, (_, i) => i + 1);
    expect(parseExportRequest({ product_ids: hundred }).product_ids).toHaveLength(100);
  });

  it('When ids repeat, Then each is kept once in first-seen order, and the 1-100 limit counts distinct ids [test:schema-limit-counts-distinct]', () => {
    expect(parseExportRequest({ product_ids: [3, 1, 3, 2, 1] }).product_ids).toEqual([3, 1, 2]);
    const hundred = Array.from({ length: MAX_PRODUCTS_PER_EXPORT }, (_, i) => i + 1);
    // 150 ids, 100 distinct: within the limit once the repeats are gone.
    expect(parseExportRequest({ product_ids: [...hundred, ...hundred.slice(0, 50)] }).product_ids).toEqual(hundred);
    // 101 distinct ids (and one repeat): over the limit.
    const err = rejection({ product_ids: [...hundred, 101, 1] });
    expect(err).toMatchObject({
      status: 422,
      issues: [{ path: 'product_ids', message: 'at most 100 distinct product ids per export' }],
    });
  });

  it('When the body is missing or a JSON value that is not an object, Then the message names the real problem [test:schema-names-empty-and-null]', () => {
    expect(rejection(undefined)).toMatchObject({
      status: 400,
      message: expect.stringContaining('The request body is empty'),
    });
    expect(rejection(null).message).toBe('The request body must be a JSON object, got null');
    expect(rejection([1, 2]).message).toBe('The request body must be a JSON object, got an array');
    expect(rejection(42).message).toBe('The request body must be a JSON object, got a number');
  });

  it.each([
    ['an empty list', { product_ids: [] }, 'product_ids'],
    ['101 ids', { product_ids: Array.from({ length: 101 }, (_, i) => i + 1) }, 'product_ids'],
    ['a fraction', { product_ids: [1.5] }, 'product_ids.0'],
    ['a negative id', { product_ids: [1, -1] }, 'product_ids.1'],
    ['zero', { product_ids: [0] }, 'product_ids.0'],
    ['a string id', { product_ids: ['2'] }, 'product_ids.0'],
    ['a missing field', {}, 'product_ids'],
    ['an unknown field', { product_ids: [1], productIds: [1] }, '(body)'],
    ['an array body', [1, 2], '(body)'],
    ['null', null, '(body)'],
  ])('When the body is %s, Then a 422 invalid-body error names %s', (_label, body, path) => {
    const err = rejection(body);
    expect(err).toMatchObject({ code: 'invalid-body', status: 422 });
    expect(err.issues?.map((issue) => issue.path)).toContain(path);
    expect(err.issues?.every((issue) => issue.message.length > 0)).toBe(true);
  });
});

describe('schemas: parseJobId', () => {
  it('When the id is a UUID, Then it is returned unchanged', () => {
    const id = '3f1c2b9e-8d4a-4c3b-9a7e-2b1d0c9e8f7a';
    expect(parseJobId(id)).toBe(id);
  });

  it.each(['not-a-uuid', '../../etc/passwd', '', '3f1c2b9e8d4a4c3b9a7e2b1d0c9e8f7a'])(
    'When the id is "%s", Then a 400 invalid-id error is thrown',
    (raw) => {
      expect(() => parseJobId(raw)).toThrow(expect.objectContaining({ code: 'invalid-id', status: 400 }));
    },
  );

  it('When the id holds a line break, Then the message shows it escaped, so it cannot forge a log line', () => {
    expect(() => parseJobId('x\nforged')).toThrow('Job id "x\\nforged" is not a UUID');
  });
});

describe('schemas: toJobResponse', () => {
  it('When a queued job is answered, Then the fields are snake_case and terminal is false', async () => {
    const job = await new MemoryJobStore().create([1, 2]);
    expect(toJobResponse(job)).toEqual({
      id: job.id,
      status: 'queued',
      terminal: false,
      product_ids: [1, 2],
      result: null,
      error: null,
      created_at: job.createdAt,
      updated_at: job.updatedAt,
    });
  });
});
