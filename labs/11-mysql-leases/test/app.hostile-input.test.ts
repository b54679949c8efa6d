// Lesson 01's hostile-input battery against lesson 11's API: the same app conventions, now
// on a real database and a real BullMQ queue (no worker: the wake-ups just wait). The
// battery asks for up to 100 distinct products, so this file's fresh database gets
// products 1 to 100 (the seed has five).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { describeHostileInputBattery } from '@tasks-lab/01-state-machine/hostile-input';
import { openQueue, type ExportJobName } from '@tasks-lab/08-broker-worker';
import { freshDatabase, type FreshDatabase } from '../src/scratch-databases.ts';
import {
  exportsAddress,
  wakeWorker,
  type DeliveryOutcome,
  type WakeUpMessage,
  type WakeUpQueue,
} from '../src/queue.ts';
import { startServer } from '../src/server.ts';
import { seedProducts } from '../src/seed-products.ts';

let db: FreshDatabase;
let queue: WakeUpQueue;
beforeAll(async () => {
  db = await freshDatabase('hostile');
  await seedProducts(db.pool, 100);
  queue = await openQueue<WakeUpMessage, DeliveryOutcome, ExportJobName>(
    exportsAddress(`exports-hostile-${randomBytes(4).toString('hex')}`),
  );
}, 60_000);
afterAll(async () => {
  await queue?.obliterate({ force: true });
  await queue?.close();
  await db?.drop();
});

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describeHostileInputBattery('lesson 11 API', {
  start: (log) => startServer(0, { pool: db.pool, wake: (jobId) => wakeWorker(queue, jobId), log }),
  routes: [
    { path: '/exports', allow: ['POST'] },
    { path: `/exports/${UNKNOWN_ID}`, allow: ['GET', 'HEAD'] },
  ],
});
