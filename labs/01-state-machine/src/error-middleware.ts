// One place turns every error into an HTTP answer: { error, message, issues? }.
// Express 5 forwards a rejected async handler here by itself, so routes have no try/catch.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError } from './app-error.ts';
import type { ErrorResponse } from './schemas.ts';

/** Errors raised by express.json() carry a `type`; map the ones a client can cause. */
function fromBodyParser(err: { type?: unknown; status?: unknown }): AppError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new AppError('invalid-body', 'The request body is not valid JSON', 400);
    case 'entity.too.large':
      return new AppError('invalid-body', 'The request body is too large', 413);
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new AppError('invalid-body', 'The request body encoding is not supported', 415);
    default:
      return undefined;
  }
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new AppError('not-found', `No route for ${req.method} ${req.path}`, 404));
};

export function errorMiddleware(log: (line: string) => void = console.error): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const appError = err instanceof AppError ? err : fromBodyParser(err);
    if (!appError) log(`unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    const known = appError ?? new AppError('internal', 'Something went wrong on the server', 500);
    const body: ErrorResponse = { error: known.code, message: known.message };
    if (known.issues) body.issues = known.issues;
    res.status(known.status).json(body);
  };
}
