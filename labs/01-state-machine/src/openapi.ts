// The OpenAPI description behind /docs, built from the same zod schemas the routes
// validate with, so the docs cannot drift from the code.
import { z } from 'zod';
import { errorResponseSchema, exportRequestSchema, jobResponseSchema } from './schemas.ts';

const json = (schema: z.ZodType) => ({ 'application/json': { schema: z.toJSONSchema(schema, { io: 'input' }) } });
const error = (description: string) => ({ description, content: json(errorResponseSchema) });

export function buildOpenApiDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'tasks-lab 01: export jobs',
      version: '1.0.0',
      description: 'Submit an export job, get 202 and a Location, then poll the job status.',
    },
    paths: {
      '/exports': {
        post: {
          summary: 'Submit an export job',
          requestBody: { required: true, content: json(exportRequestSchema) },
          responses: {
            '202': {
              description: 'Accepted: the job is queued. Poll the URL in the Location header.',
              headers: { Location: { schema: { type: 'string' }, description: '/exports/{id}' } },
              content: json(jobResponseSchema),
            },
            '400': error('The body is empty, is not JSON, or does not decode as its Content-Encoding says'),
            '405': error('This path takes POST only (see the Allow header)'),
            '413': error('The body is larger than 16 KiB once decompressed'),
            '415': error('The body is not UTF-8 application/json, or its Content-Encoding is not gzip, deflate or br'),
            '422': error(
              'The body is JSON but not a valid export request (not an object, wrong fields, 0 or over 100 distinct ids)',
            ),
          },
        },
      },
      '/exports/{id}': {
        get: {
          summary: 'Read an export job',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
          responses: {
            '200': { description: 'The job', content: json(jobResponseSchema) },
            '400': error('The id is not a UUID, or the path does not percent-decode'),
            '404': error('No job has this id (in this process)'),
            '405': error('This path takes GET and HEAD only (see the Allow header)'),
          },
        },
      },
    },
  };
}
