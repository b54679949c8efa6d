// What crosses the HTTP boundary: each schema with its type, validated at the edge.
import { z } from 'zod';
import { AppError, type Issue } from './app-error.ts';
import { distinctProductIds, isTerminal, JOB_STATES, type ExportJob } from './store.ts';

/** The course's limit of ids per export, counted after de-duplication: [1, 1, 2] asks for 2 products. */
export const MAX_PRODUCTS_PER_EXPORT = 100;

export const exportRequestSchema = z
  .object({
    // De-duplicated here, at the edge, so the limit counts distinct products and the 202
    // shows what will be exported; every JobStore's create() de-duplicates too (the store
    // contract grades it), for callers that never pass through HTTP.
    product_ids: z
      .array(z.number().int().positive().max(Number.MAX_SAFE_INTEGER))
      .min(1, 'give at least one product id')
      .transform(distinctProductIds)
      .pipe(
        z
          .array(z.number())
          .max(MAX_PRODUCTS_PER_EXPORT, `at most ${MAX_PRODUCTS_PER_EXPORT} distinct product ids per export`),
      )
      .meta({
        description: `1 to ${MAX_PRODUCTS_PER_EXPORT} distinct positive product ids; a repeated id is kept once, where it first appears`,
      }),
  })
  // An unknown field is a client mistake (a typo such as "productIds"), not something to ignore.
  .strict();
export type ExportRequest = z.infer<typeof exportRequestSchema>;

export const jobIdSchema = z.uuid();

export const jobResponseSchema = z.object({
  id: z.uuid(),
  status: z.enum(JOB_STATES),
  /** Derived from status on every read; never stored, so it cannot disagree with it. */
  terminal: z.boolean(),
  product_ids: z.array(z.number().int()),
  result: z.object({ rows: z.number().int() }).nullable(),
  error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type JobResponse = z.infer<typeof jobResponseSchema>;

export const errorResponseSchema = z.object({
  error: z.string(),
  message: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type ErrorResponse = z.infer<typeof errorResponseSchema>;

export function toJobResponse(job: ExportJob): JobResponse {
  return {
    id: job.id,
    status: job.state,
    terminal: isTerminal(job.state),
    product_ids: job.productIds,
    result: job.result,
    error: job.error,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
  };
}

/** What a client that sent no body at all is told (400: there is nothing to parse). */
export function emptyBodyError(): AppError {
  return new AppError(
    'invalid-body',
    'The request body is empty: send a JSON object such as {"product_ids": [1, 2]}',
    400,
  );
}

/** "null", "an array", "a number", ...: how a JSON value that is not an object is named. */
function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/**
 * Parses a JSON request body with `schema`, or throws one AppError listing every problem by
 * path (`what` names the request in the message: "export request"). Later lessons parse
 * their own bodies with it (lesson 14's schedule request).
 */
export function parseRequestBody<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  if (body === undefined) throw emptyBodyError();
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const message = `The request body must be a JSON object, got ${jsonKind(body)}`;
    throw new AppError('invalid-body', message, 422, { issues: [{ path: '(body)', message }] });
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues: Issue[] = parsed.error.issues.map((issue) => ({
    path: issue.path.length > 0 ? issue.path.join('.') : '(body)',
    message: issue.message,
  }));
  throw new AppError('invalid-body', `The request body is not a valid ${what}`, 422, { issues });
}

/** Parses an export request body or throws one AppError listing every problem by path. */
export function parseExportRequest(body: unknown): ExportRequest {
  return parseRequestBody(exportRequestSchema, body, 'export request');
}

/** Ids come from the URL: check their shape before they reach the store (or, later, a file path). */
export function parseJobId(raw: string): string {
  if (!jobIdSchema.safeParse(raw).success) {
    // JSON.stringify shows control characters escaped: an id is the client's text.
    throw new AppError('invalid-id', `Job id ${JSON.stringify(raw.slice(0, 80))} is not a UUID`, 400);
  }
  return raw;
}
