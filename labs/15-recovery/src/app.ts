// Lesson 15's HTTP API: lesson 14's (POST /exports behind the admission gate, GET /exports/:id,
// GET /backlog, POST /schedule-slots), plus POST /exports/:id/cancel and POST /exports/:id/replay
// (src/recovery-routes.ts).
import type { Express } from 'express';
import { createApp as createScheduleApp } from '@tasks-lab/14-schedule-slots';
import { mountRecoveryRoutes, type RecoveryRouteOptions } from './recovery-routes.ts';

export type AppOptions = RecoveryRouteOptions;

export function createApp(options: AppOptions): Express {
  return createScheduleApp({
    ...options,
    routes: (app) => {
      mountRecoveryRoutes(app, options);
      options.routes?.(app);
    },
  });
}
