// The settings of lesson 09's two worker processes, read once from the environment
// and checked: a zero, negative or non-numeric timing is refused with a message that
// names the variable and its bounds. Nothing else in this lab reads process.env.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { choice, defineOptions, name, text } from '@tasks-lab/lab-kit';
import { WORKER_OPTIONS as BROKER_WORKER_OPTIONS } from '@tasks-lab/08-broker-worker';

/** This lab's folder; artifacts/ under it is git-ignored. */
const LAB_DIR = fileURLToPath(new URL('..', import.meta.url));

const broker = BROKER_WORKER_OPTIONS.specs;

/**
 * The export worker (`pnpm worker`): lesson 08's queue, concurrency, lock and stall
 * settings, plus where the artifacts go and whether the drill's ledger is on. The
 * timings keep BullMQ's defaults (30000, 30000, 1); the drills shorten them through
 * the same variables.
 */
export const WORKER_OPTIONS = defineOptions({
  ...broker,
  /**
   * One job at a time, as the course runs this lesson: a SIGKILL then interrupts exactly one delivery.
   * @defaultValue 1
   */
  concurrency: { ...broker.concurrency, default: 1 },
  /** Where the worker writes its artifacts (git-ignored). @defaultValue `artifacts/` in this lab's folder */
  artifactDir: text('ARTIFACT_DIR', join(LAB_DIR, 'artifacts')),
  /**
   * `on`: the late-ack drill's side effect that is NOT idempotent (src/ledger.ts) is written; off unless a drill
   * asks. @defaultValue 'off'
   */
  ledger: choice('EXPORT_LEDGER', 'off', ['off', 'on']),
});

/**
 * The deep dive's CPU worker (src/cpu-worker.ts). Its busy jobs have a queue of their
 * own, so it never takes (and refuses) an export job.
 */
export const CPU_WORKER_OPTIONS = defineOptions({
  /** The CPU worker's own queue: it never takes (and refuses) an export job. @defaultValue 'busy' */
  queueName: name('BUSY_QUEUE', 'busy'),
  /**
   * `inline`: the busy job runs on the worker's event loop (its lock cannot be renewed); `sandboxed`: in a child
   * process. @defaultValue 'inline'
   */
  processor: choice('PROCESSOR', 'inline', ['inline', 'sandboxed']),
  lockDurationMs: broker.lockDurationMs,
  stalledIntervalMs: broker.stalledIntervalMs,
  maxStalledCount: broker.maxStalledCount,
});
