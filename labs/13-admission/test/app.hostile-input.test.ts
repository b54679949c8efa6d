// Lesson 01's hostile-input battery against lesson 13's API: lesson 12's app, now behind the
// admission gate, routing each export to exports.fast or exports.bulk, with one more route,
// GET /backlog. Nobody listens to the nudges here: the events just wait. The battery asks
// for up to 100 distinct products, so this file's fresh database gets products 6 to 100 too.
// The course's limit (100 queued or running) stays: the battery accepts about 55 jobs.
import { afterAll, beforeAll } from 'vitest';
import type { Redis } from 'ioredis';
import { describeHostileInputBattery } from '@tasks-lab/01-state-machine/hostile-input';
import { openNudgeClient, publishNudge } from '@tasks-lab/12-outbox';
import { describeAdmission } from '../src/admission.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { nudgeChannel } from '../src/options.ts';
import { startServer } from '../src/server.ts';
import { seedProducts } from '@tasks-lab/11-mysql-leases';

let db: FreshDatabase;
let redis: Redis;
beforeAll(async () => {
  db = await freshDatabase('hostile');
  await seedProducts(db.pool, 100);
  redis = openNudgeClient();
}, 60_000);
afterAll(async () => {
  redis?.disconnect();
  await db?.drop();
});

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describeHostileInputBattery('lesson 13 API', {
  start: (log) =>
    startServer(0, {
      pool: db.pool,
      nudge: () => publishNudge(redis, { channel: nudgeChannel }),
      // Each admission's line goes to the battery's log too: it must stay one short line.
      onAdmission: (admission) => log(describeAdmission(admission)),
      log,
    }),
  routes: [
    { path: '/exports', allow: ['POST'] },
    { path: `/exports/${UNKNOWN_ID}`, allow: ['GET', 'HEAD'] },
    { path: '/backlog', allow: ['GET', 'HEAD'] },
  ],
});
