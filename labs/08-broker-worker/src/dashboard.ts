// Bull Board, the queue dashboard, mounted at /admin/queues on a small Express app.
// It is read-only here: the lab binds it to 127.0.0.1 and it has no login, so it
// must not offer "retry", "clean" or "remove" buttons to whoever can reach it.
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express, { type Express } from 'express';

export const DASHBOARD_PATH = '/admin/queues';

/** The dashboard shows any queue: it reads job data and results, it never types them. */
export type AnyQueue = Queue<unknown, unknown, string>;

export function createDashboardApp(queues: readonly AnyQueue[]): Express {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
    serverAdapter,
  });
  const app = express();
  app.disable('x-powered-by');
  app.get('/', (_req, res) => {
    res.redirect(DASHBOARD_PATH);
  });
  app.use(DASHBOARD_PATH, serverAdapter.getRouter());
  return app;
}
