// Lesson 14's HTTP API: lesson 13's (POST /exports behind the admission gate, GET
// /exports/:id, GET /backlog), plus POST /schedule-slots (src/schedule-slot-route.ts).
import type { Express } from 'express';
import { createApp as createAdmissionApp } from '@tasks-lab/13-admission';
import { mountScheduleSlotRoute, type ScheduleSlotRouteOptions } from './schedule-slot-route.ts';

export type AppOptions = ScheduleSlotRouteOptions;

export function createApp(options: AppOptions): Express {
  return createAdmissionApp({
    ...options,
    routes: (app) => {
      mountScheduleSlotRoute(app, options);
      options.routes?.(app);
    },
  });
}
