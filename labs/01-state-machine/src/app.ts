// The HTTP API of lesson 01: submit an export job (202 + Location) and read it back.
import express, { type Express, type Request, type RequestHandler } from 'express';
import swaggerUi from 'swagger-ui-express';
import { AppError } from './app-error.ts';
import { errorMiddleware, notFoundError, notFoundHandler } from './error-middleware.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { emptyBodyError, parseExportRequest, parseJobId, toJobResponse } from './schemas.ts';
import { MemoryJobStore, type JobStore } from './store.ts';

/** Bodies are a list of at most 100 ids; 16 KiB is plenty and stops a huge upload early. */
export const MAX_BODY_BYTES = 16 * 1024;

export interface AppOptions {
  /** Where jobs are kept. @defaultValue a new MemoryJobStore (lesson 01 keeps jobs in memory) */
  store?: JobStore;
  log?: (line: string) => void;
  /**
   * Later lessons add their own routes here. They are registered before lesson 01's, so a
   * fixed path such as /exports/background is matched before /exports/:id could take
   * "background" for an id; the 404 and error handlers come after them.
   */
  extendRoutes?: (app: Express, store: JobStore) => void;
}

/** True when the request announces no body at all (no length, or length 0, and not chunked). */
function announcesNoBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || Number(length) === 0);
}

/** The charset the Content-Type names, if any: `application/json; charset=utf-8` -> `utf-8`. */
function declaredCharset(req: Request): string | undefined {
  return /;\s*charset="?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
}

/** Refuses a body that is empty or not declared as UTF-8 JSON before the JSON parser sees it. */
export const requireJson: RequestHandler = (req, _res, next) => {
  if (announcesNoBody(req)) return next(emptyBodyError());
  if (!req.is('application/json')) {
    return next(new AppError('invalid-body', 'Send the body as JSON with Content-Type: application/json', 415));
  }
  // JSON between systems is UTF-8 (RFC 8259); the parser would also decode utf-7 or utf-16.
  const charset = declaredCharset(req);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return next(new AppError('invalid-body', 'Send the body as UTF-8 JSON', 415));
  }
  next();
};

/**
 * Parses the body after requireJson: at most MAX_BODY_BYTES once decompressed. Any JSON
 * value is parsed (strict: false), so that parseExportRequest can say "got null" rather
 * than "not valid JSON". Every route that takes an export request uses the pair.
 */
export const parseJsonBody: RequestHandler = express.json({
  limit: MAX_BODY_BYTES,
  strict: false,
  // A chunked or compressed body can still turn out empty once read.
  verify: (_req, _res, raw) => {
    if (raw.length === 0) throw emptyBodyError();
  },
});

/**
 * The last handler of a route: a method the route does not take gets 405 with an Allow
 * header listing the ones it does. Express answers HEAD with the GET handler, so a GET
 * route allows HEAD too.
 */
export function allowOnly(...methods: string[]): RequestHandler {
  const allow = (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', ');
  return (req, res, next) => {
    res.set('Allow', allow);
    next(new AppError('method-not-allowed', `${req.method} is not allowed here; this path takes ${allow}`, 405));
  };
}

/**
 * swagger-ui-express answers any path ending in /package.json with a plain-text 404 of its
 * own; this sends those to our JSON 404 instead, like every other miss under /docs.
 */
const packageJsonIsAMiss: RequestHandler = (req, _res, next) => {
  next(req.path.endsWith('/package.json') ? notFoundError(req) : undefined);
};

export function createApp(options: AppOptions = {}): { app: Express; store: JobStore } {
  const store = options.store ?? new MemoryJobStore();
  const app = express();
  app.disable('x-powered-by');
  options.extendRoutes?.(app, store);

  app
    .route('/exports')
    .post(requireJson, parseJsonBody, async (req, res) => {
      const request = parseExportRequest(req.body);
      const job = await store.create(request.product_ids);
      // 202 says "accepted", not "done": the client polls the Location to learn more.
      res.status(202).location(`/exports/${job.id}`).json(toJobResponse(job));
    })
    .all(allowOnly('POST'));

  app
    .route('/exports/:id')
    .get(async (req, res) => {
      const job = await store.require(parseJobId(req.params.id));
      res.json(toJobResponse(job));
    })
    .all(allowOnly('GET'));

  // Interactive docs, served from the installed swagger-ui package (no network needed).
  app.use('/docs', packageJsonIsAMiss, swaggerUi.serve);
  // Only the page itself: /docs/anything-else is a 404, not a second copy of the page.
  app.route('/docs').get(swaggerUi.setup(buildOpenApiDocument())).all(allowOnly('GET'));
  app
    .route('/openapi.json')
    .get((_req, res) => {
      res.json(buildOpenApiDocument());
    })
    .all(allowOnly('GET'));

  app.use(notFoundHandler);
  app.use(errorMiddleware(options.log));
  return { app, store };
}
