// Bull Board, the queue dashboard, mounted at /admin/queues on a small Express app.
// It is read-only here: the lab binds it to 127.0.0.1 and it has no login, so it
// must not offer "retry", "clean" or "remove" buttons to whoever can reach it. Two
// locks, not one: every queue is added in Bull Board's read-only mode, and the app
// itself answers 405 to any method but GET and HEAD before Bull Board sees it.
//
// Whatever a client sends, the answer is a 4xx in JSON with one short log line: a
// broken percent-encoding, a page number past what Redis can count, an unknown path.
// Never a 5xx for a client's mistake, never a stack trace in the answer or the log.
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { errorMessage } from '@tasks-lab/lab-kit';
import type { Queue } from 'bullmq';
import express, { type ErrorRequestHandler, type Express, type RequestHandler, type Response } from 'express';

export const DASHBOARD_PATH = '/admin/queues';

/** The dashboard shows any queue: it reads job data and results, it never types them. */
export type AnyQueue = Queue<unknown, unknown, string>;

/** The only methods a read-only dashboard serves. */
export const READ_METHODS = ['GET', 'HEAD'] as const;

/**
 * Bounds for the job list's paging. Bull Board checks that they are whole numbers but
 * not how big: page 10^20 reaches Redis as an index it cannot hold and comes back a 500.
 */
export const PAGING_LIMITS = { page: 1_000_000, jobsPerPage: 1000 } as const;

export interface DashboardAppOptions {
  /** Where the one line per refused request goes. @defaultValue console.error */
  log?: (line: string) => void;
}

export function createDashboardApp(queues: readonly AnyQueue[], options: DashboardAppOptions = {}): Express {
  const log = options.log ?? ((line: string) => console.error(line));
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
    serverAdapter,
  });
  const app = express();
  app.disable('x-powered-by');
  app.use(readMethodsOnly);
  app.get('/', (_req, res) => {
    res.redirect(DASHBOARD_PATH);
  });
  app.get(`${DASHBOARD_PATH}/api/queues`, boundedPaging);
  app.use(DASHBOARD_PATH, serverAdapter.getRouter());
  app.use((req, res) => refuse(res, 404, 'not-found', `nothing at ${req.method} ${req.path.slice(0, 200)}`));
  app.use(clientErrors(log));
  return app;
}

/** The JSON every refusal uses. Bull Board's UI reads `error` and `message`. */
function refuse(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ error: code, message });
}

const readMethodsOnly: RequestHandler = (req, res, next) => {
  if ((READ_METHODS as readonly string[]).includes(req.method)) return next();
  res.setHeader('Allow', READ_METHODS.join(', '));
  refuse(res, 405, 'method-not-allowed', `the dashboard is read-only: ${req.method} is not served`);
};

const boundedPaging: RequestHandler = (req, res, next) => {
  for (const [field, max] of Object.entries(PAGING_LIMITS)) {
    const raw = req.query[field];
    if (raw === undefined) continue;
    const value = typeof raw === 'string' && /^\d{1,7}$/.test(raw) ? Number(raw) : NaN;
    if (!(value >= 1 && value <= max)) {
      return refuse(
        res,
        400,
        'invalid-query',
        `${field} must be a whole number from 1 to ${max}, got ${JSON.stringify(raw).slice(0, 40)}`,
      );
    }
  }
  next();
};

/**
 * The last handler: an error a request caused (Express marks those with a 4xx status,
 * e.g. 400 for a path that does not percent-decode) is answered as such; anything else
 * is the server's fault, a 500. Either way: JSON, and one line in the log.
 */
function clientErrors(log: (line: string) => void): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const status = httpStatusOf(err);
    const message = errorMessage(err).split('\n')[0]?.slice(0, 200) ?? '';
    log(`dashboard: ${status} ${req.method} ${req.originalUrl.slice(0, 120)}: ${message}`);
    if (res.headersSent) return;
    if (status < 500) refuse(res, status, 'bad-request', message);
    else refuse(res, 500, 'internal-error', 'the dashboard failed; see its log');
  };
}

function httpStatusOf(err: unknown): number {
  const status =
    typeof err === 'object' && err !== null
      ? ((err as { status?: unknown }).status ?? (err as { statusCode?: unknown }).statusCode)
      : undefined;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}
