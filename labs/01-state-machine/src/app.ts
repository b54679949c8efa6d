// The HTTP API of lesson 01: submit an export job (202 + Location) and read it back.
import express, { type Express, type RequestHandler } from 'express';
import swaggerUi from 'swagger-ui-express';
import { AppError } from './app-error.ts';
import { errorMiddleware, notFoundHandler } from './error-middleware.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { parseExportRequest, parseJobId, toJobResponse } from './schemas.ts';
import { MemoryJobStore, type JobStore } from './store.ts';

/** Bodies are a list of at most 100 ids; 16 KiB is plenty and stops a huge upload early. */
export const MAX_BODY_BYTES = 16 * 1024;

export interface AppOptions {
  /** Where jobs are kept. @defaultValue a new MemoryJobStore (lesson 01 keeps jobs in memory) */
  store?: JobStore;
  log?: (line: string) => void;
  /** Later lessons add their own routes here, before the 404 and error handlers. */
  extendRoutes?: (app: Express, store: JobStore) => void;
}

/** Refuses a body that is not declared as JSON (415) before the JSON parser sees it. */
export const requireJson: RequestHandler = (req, _res, next) => {
  if (!req.is('application/json')) {
    next(new AppError('invalid-body', 'Send the body as JSON with Content-Type: application/json', 415));
    return;
  }
  next();
};

export function createApp(options: AppOptions = {}): { app: Express; store: JobStore } {
  const store = options.store ?? new MemoryJobStore();
  const app = express();
  app.disable('x-powered-by');

  app.post('/exports', requireJson, express.json({ limit: MAX_BODY_BYTES }), async (req, res) => {
    const request = parseExportRequest(req.body);
    const job = await store.create(request.product_ids);
    // 202 says "accepted", not "done": the client polls the Location to learn more.
    res.status(202).location(`/exports/${job.id}`).json(toJobResponse(job));
  });

  app.get('/exports/:id', async (req, res) => {
    const job = await store.require(parseJobId(req.params.id));
    res.json(toJobResponse(job));
  });

  // Interactive docs, served from the installed swagger-ui package (no network needed).
  app.use('/docs', swaggerUi.serve, swaggerUi.setup(buildOpenApiDocument()));
  app.get('/openapi.json', (_req, res) => {
    res.json(buildOpenApiDocument());
  });

  options.extendRoutes?.(app, store);
  app.use(notFoundHandler);
  app.use(errorMiddleware(options.log));
  return { app, store };
}
