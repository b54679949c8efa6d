// Time limits, which BullMQ does not have: no job option stops a processor that runs
// too long. Celery's two limits are rebuilt here.
//   soft: a timer aborts an AbortSignal; the work must notice it, clean up and stop.
//         Cooperative only: code that never looks at the signal runs on.
//   hard: the work runs in a child process and the parent kills it with SIGKILL when
//         it overruns. Works even when the child's event loop is blocked, because the
//         timer lives in the parent, whose loop is free.
import { startTsProcess } from '@tasks-lab/lab-kit';
import { FailFastError } from './errors.ts';

export const SOFT_TIME_LIMIT_EXCEEDED = 'soft time limit exceeded';
export const HARD_TIME_LIMIT_EXCEEDED = 'hard time limit exceeded';

/** The course's crawler: 8 s to stop by itself, killed at 10 s. The gap is the time left for cleanup. */
export const TIME_LIMIT_DEFAULTS = { softTimeLimitMs: 8000, hardTimeLimitMs: 10_000 };

/** The work overran its soft limit. Not retried: the same input would overrun again. */
export class SoftTimeLimitError extends FailFastError {
  constructor() {
    super('soft-time-limit', SOFT_TIME_LIMIT_EXCEEDED);
  }
}

/** The child overran its hard limit and was killed. Not retried, for the same reason. */
export class HardTimeLimitError extends FailFastError {
  constructor() {
    super('hard-time-limit', HARD_TIME_LIMIT_EXCEEDED);
  }
}

/**
 * Runs `work` with a signal that aborts after `limitMs` (the signal's reason is a
 * SoftTimeLimitError). If the work gives up because of that signal, the job fails with
 * "soft time limit exceeded".
 */
export async function withSoftTimeLimit<T>(limitMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new SoftTimeLimitError()), limitMs);
  try {
    return await work(controller.signal);
  } catch (err) {
    if (controller.signal.aborted) throw controller.signal.reason;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

export interface HardLimitRun {
  /** The child's entry point, a .ts file. */
  script: string;
  args?: string[];
  limitMs: number;
  /** Told the child's pid as soon as it exists (the drill checks that it is gone afterwards). */
  onStart?: (pid: number) => void | Promise<void>;
  /**
   * What the watchdog sends. SIGKILL, because nothing in the child can catch or delay
   * it. (SIGTERM would wait for the child's handler, and a blocked loop never runs it:
   * the can-fail test shows the child surviving.) @defaultValue 'SIGKILL'
   */
  killSignal?: NodeJS.Signals;
}

/**
 * Runs a script in its own process (a LabProcess). Exit code 0 before the limit: done.
 * Otherwise the parent's watchdog kills it and the job fails with "hard time limit exceeded".
 */
export async function runWithHardTimeLimit({
  script,
  args,
  limitMs,
  onStart,
  killSignal = 'SIGKILL',
}: HardLimitRun): Promise<void> {
  const child = startTsProcess(script, { args });
  let timer: NodeJS.Timeout | undefined;
  try {
    await onStart?.(child.pid);
    const overran = new Promise<'overran'>((resolve) => {
      timer = setTimeout(() => resolve('overran'), limitMs);
    });
    const first = await Promise.race([child.exited, overran]);
    if (first === 'overran') {
      await child.kill(killSignal); // resolves when the child has exited
      throw new HardTimeLimitError();
    }
    if (first.code !== 0) throw new Error(`child exited with code ${first.code} (signal ${first.signal})`);
  } finally {
    clearTimeout(timer);
    await child.kill('SIGKILL'); // a no-op when it already exited; never leave a child behind
  }
}
