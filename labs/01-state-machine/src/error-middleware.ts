// One place turns every error into an HTTP answer: { error, message, issues? }.
// Express 5 forwards a rejected async handler here by itself, so routes have no try/catch.
// A client's mistake is a 4xx with one short log line; only an error nobody expected is a
// 500, logged with its stack so it can be fixed. A hostile client can send thousands of
// bad requests: each must cost one line, not a stack trace.
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { AppError } from './app-error.ts';
import type { ErrorResponse } from './schemas.ts';

/** "GET /exports/abc", with the path cut short: it is the client's text, of any length. */
function describeRequest(req: Request): string {
  const path = req.originalUrl.split('?')[0] ?? '';
  return `${req.method} ${path.length > 120 ? `${path.slice(0, 120)}...` : path}`;
}

export function notFoundError(req: Request): AppError {
  return new AppError('not-found', `No route for ${describeRequest(req)}`, 404);
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(notFoundError(req));
};

/** What the libraries under our routes throw (body-parser, the router): a 4xx `status` marks a client's mistake. */
interface LibraryError {
  type?: unknown;
  status?: unknown;
}

/** The errors a client can cause below our own code, as AppErrors; undefined for anything else. */
function fromLibrary(err: unknown, req: Request): AppError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { type, status } = err as LibraryError;
  switch (type) {
    case 'entity.parse.failed':
      return new AppError('invalid-body', 'The request body is not valid JSON', 400);
    case 'entity.too.large':
      return new AppError('invalid-body', 'The request body is too large', 413);
    case 'charset.unsupported':
      return new AppError('invalid-body', 'Send the body as UTF-8 JSON', 415);
    case 'encoding.unsupported':
      return new AppError(
        'invalid-body',
        'The request body uses a Content-Encoding this API does not read (use gzip, deflate, br or none)',
        415,
      );
    case 'request.aborted':
      // The connection closed before the announced body arrived: the client hung up, or the
      // request timeout answered 408 on the socket itself (server.ts). Nobody reads this answer.
      return new AppError('request-aborted', 'The connection closed before the request body arrived', 400);
  }
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  // The router percent-decodes path parameters; `/exports/%ff` cannot be decoded.
  if (err instanceof URIError)
    return new AppError('invalid-path', 'The path holds a percent-encoding that does not decode (such as %ff)', 400);
  // body-parser could not decompress the body: its bytes are not what Content-Encoding says.
  const encoding = req.headers['content-encoding'];
  if (encoding && encoding !== 'identity') {
    return new AppError('invalid-body', 'The request body does not decode as its Content-Encoding says', 400);
  }
  return new AppError('bad-request', 'The request could not be read', status);
}

/** Control characters would let a client forge extra log lines: show them escaped. */
function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  const escaped = text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.slice(0, 300);
}

/**
 * Turns an error a later lesson knows (a database that does not answer, say) into its AppError;
 * undefined leaves it to the middleware (a library's 4xx, or a 500).
 */
export type ErrorTranslator = (err: unknown) => AppError | undefined;

export function errorMiddleware(
  log: (line: string) => void = console.error,
  translate?: ErrorTranslator,
): ErrorRequestHandler {
  return (err, req, res, next) => {
    // Part of the answer is already on its way: only Express can end the connection now.
    if (res.headersSent) return next(err);
    const clientError = err instanceof AppError ? err : (translate?.(err) ?? fromLibrary(err, req));
    if (clientError) {
      log(oneLine(`${clientError.status} ${clientError.code} ${describeRequest(req)}: ${clientError.message}`));
    } else {
      log(
        `unexpected error on ${oneLine(describeRequest(req))}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
    }
    const known = clientError ?? new AppError('internal', 'Something went wrong on the server', 500);
    const body: ErrorResponse = { error: known.code, message: known.message };
    if (known.issues) body.issues = known.issues;
    if (known.headers) res.set(known.headers);
    res.status(known.status).json(body);
  };
}
