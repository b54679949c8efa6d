// The fast worker as a real process, on a fresh database and a BullMQ prefix of this file's
// own: its ready line says whether a schedule exists; with a 1 s schedule registered, each
// signal makes the slot of its PLANNED time (consecutive planned times 1 s apart, each slot
// key named from the time in the signal's BullMQ id); SIGTERM closes it cleanly (exit 0).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTS_ENV, launchProcess, waitFor, type LabProcess } from '@tasks-lab/lab-kit';
import { openQueue } from '@tasks-lab/08-broker-worker';
import { WORKER_SHUTDOWN_GRACE_MS } from '@tasks-lab/11-mysql-leases';
import { BULK_QUEUE, exportsAddress, FAST_QUEUE } from '@tasks-lab/13-admission';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { QUEUE_PREFIX, readShortScheduleOptions, SCHEDULE_OPTIONS, WORKER_PROCESS_OPTIONS } from '../src/options.ts';
import { SLOTS_WITH_PREFIX } from '../src/slot-queries.ts';
import { upsertExportSchedule } from '../src/schedule-registration.ts';
import { plannedSlot } from '../src/slot-keys.ts';
import type { TickMessage, TickOutcome } from '../src/tick.ts';
import { ticksIn } from '../scripts/scheduler-scenarios.ts';

const WORKER = fileURLToPath(new URL('../src/worker.ts', import.meta.url));
const SCHEDULE = 'proc-test';
const EVERY_MS = 1000;
const prefix = `${QUEUE_PREFIX}-x${randomBytes(4).toString('hex')}`;
let db: FreshDatabase;
let artifactsDir: string;
let worker: LabProcess | undefined;

beforeAll(async () => {
  db = await freshDatabase('fastproc');
  artifactsDir = await mkdtemp(join(tmpdir(), 'tasks-lab14-artifacts-'));
}, 60_000);

afterAll(async () => {
  await worker?.kill();
  for (const queueName of [FAST_QUEUE, BULK_QUEUE] as const) {
    const queue = await openQueue(exportsAddress(queueName, prefix));
    await queue.obliterate({ force: true });
    await queue.close();
  }
  await db?.drop();
  if (artifactsDir) await rm(artifactsDir, { recursive: true, force: true });
});

describe('the fast worker process', () => {
  it('When a 1 s schedule runs, Then each signal makes the slot of its planned time and the planned times are 1 s apart [test:fast-worker-slots-follow-planned-times]', async () => {
    const timings = readShortScheduleOptions(
      {},
      { scheduleId: SCHEDULE, scheduleEveryMs: EVERY_MS, slotKeyFrom: 'planned' },
    );
    worker = await launchProcess(WORKER, {
      args: ['fast'],
      ready: /export worker \d+ ready/,
      env: {
        ...SCHEDULE_OPTIONS.toEnv(timings),
        ...WORKER_PROCESS_OPTIONS.toEnv({ database: db.name, artifactsDir, queuePrefix: prefix }),
        [FAULTS_ENV]: '',
      },
    });
    // Started before `pnpm schedule`: it registers nothing itself, and says so.
    expect(worker.output()).toMatch(
      new RegExp(`queue exports\\.fast \\(prefix ${prefix}\\).*schedule ${SCHEDULE}: NOT registered`),
    );

    const queue = await openQueue<TickMessage, TickOutcome>(exportsAddress(FAST_QUEUE, prefix));
    try {
      await upsertExportSchedule(queue, { scheduleId: SCHEDULE, everyMs: EVERY_MS });
    } finally {
      await queue.close();
    }
    const running = worker;
    const ticks = await waitFor(
      'three signals',
      () => ticksIn(running.output()).length >= 3 && ticksIn(running.output()).slice(0, 3),
      { timeoutMs: 10_000, intervalMs: 100 },
    );

    const planned = ticks.map((t) => Date.parse(t.plannedAt));
    expect(planned.slice(1).map((p, i) => p - planned[i]!)).toEqual([EVERY_MS, EVERY_MS]);
    for (const [i, tick] of ticks.entries()) {
      expect(tick.bullmqId).toBe(`repeat:${SCHEDULE}:${planned[i]}`);
      expect(tick.status).toBe('scheduled');
      expect(tick.slotKey).toBe(plannedSlot(SCHEDULE, new Date(planned[i]!), EVERY_MS));
    }
    const [rows] = await db.pool.query<RowDataPacket[]>(SLOTS_WITH_PREFIX, [`shop-export:${SCHEDULE}:%`]);
    const slots = new Map(rows.map((row) => [String(row.slot_key), String(row.job_id)]));
    expect(ticks.map((t) => slots.get(t.slotKey))).toEqual(ticks.map((t) => t.jobId));
    expect(new Set(ticks.map((t) => t.jobId)).size).toBe(3);
  }, 60_000);

  it('When it gets SIGTERM, Then it closes the worker and the pool and exits 0 within the grace [test:fast-worker-sigterm-clean-exit]', async () => {
    expect(worker, 'the previous test starts the worker').toBeDefined();
    const exit = await worker!.stop(WORKER_SHUTDOWN_GRACE_MS);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(worker!.output()).toMatch(/SIGTERM: closing/);
  }, 30_000);
});
