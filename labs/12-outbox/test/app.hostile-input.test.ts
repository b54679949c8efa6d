// Lesson 01's hostile-input battery against lesson 12's API: the same app conventions, now
// writing a job and its outbox event in one transaction, and nudging a publisher on Redis
// (nobody listens here: the events just wait). The battery asks for up to 100 distinct
// products, so this file's fresh database gets products 1 to 100 (the seed has five).
import { afterAll, beforeAll } from 'vitest';
import type { Redis } from 'ioredis';
import { describeHostileInputBattery } from '@tasks-lab/01-state-machine/hostile-input';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { publishNudge } from '../src/nudge.ts';
import { openNudgeClient } from '../src/nudge.ts';
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

describeHostileInputBattery('lesson 12 API', {
  start: (log) => startServer(0, { pool: db.pool, nudge: () => publishNudge(redis), log }),
  routes: [
    { path: '/exports', allow: ['POST'] },
    { path: `/exports/${UNKNOWN_ID}`, allow: ['GET', 'HEAD'] },
  ],
});
