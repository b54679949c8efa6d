// Entry points and graceful exit, the same way in every lab process.
//   runMain(import.meta.url, main)      runs main() only when this file is the entry point
//   onShutdown(close, { graceMs })      SIGTERM / SIGINT: close once, bounded; a second signal forces exit
//                                       (a repeat within a second is the same Ctrl-C, relayed by pnpm)
// Lesson 15 teaches graceful exit; every process before it already behaves that way.
import { pathToFileURL } from 'node:url';
import { errorMessage } from './errors.ts';
import { SECOND } from './time.ts';

/** True when `moduleUrl` (pass import.meta.url) is the file Node was started with. */
export function isEntryPoint(moduleUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && moduleUrl === pathToFileURL(entry).href;
}

/**
 * Runs `main` when the module is the process's entry point, and does nothing when it
 * is imported (by a test, or by the next lab). A number returned by main becomes the
 * exit code; an error is printed as one line (never a stack full of connection
 * options) and exits 1.
 */
export function runMain(moduleUrl: string, main: () => Promise<number | void> | number | void): void {
  if (!isEntryPoint(moduleUrl)) return;
  Promise.resolve()
    .then(main)
    .then(
      (code) => {
        if (typeof code === 'number') process.exitCode = code;
      },
      (err: unknown) => {
        console.error(errorMessage(err));
        process.exit(1);
      },
    );
}

export interface PressOptions {
  /**
   * A signal that arrives this soon after the first one is the same request, not a second one.
   * A terminal's Ctrl-C reaches every process of the foreground group, and `pnpm <script>` also
   * relays the SIGINT it got to its child, so one key press arrives twice, under 2 ms apart
   * (measured); counting the copy as "Ctrl-C again" would skip the graceful close. Both copies
   * reach the handler at once even when the event loop is busy. A person pressing Ctrl-C again,
   * because the close takes too long, does so well after this.
   * @defaultValue 1000
   */
  repeatWindowMs?: number;
  /** Injected in tests; @defaultValue Date.now */
  now?: () => number;
}

/** What a stop signal means: the first request, a copy of it (see repeatWindowMs), or a request again. */
export type Press = 'first' | 'copy' | 'again';

/** Counts stop requests (SIGINT, SIGTERM) the way a person means them; call it once per signal. */
export function stopPresses(options: PressOptions = {}): () => Press {
  const repeatWindowMs = options.repeatWindowMs ?? SECOND;
  const now = options.now ?? Date.now;
  let firstAt: number | undefined;
  return () => {
    if (firstAt === undefined) {
      firstAt = now();
      return 'first';
    }
    return now() - firstAt < repeatWindowMs ? 'copy' : 'again';
  };
}

export interface ShutdownOptions extends PressOptions {
  /** How long close() may take before the process exits anyway (exit code 1). @defaultValue 10000 */
  graceMs?: number;
  /** @defaultValue ['SIGTERM', 'SIGINT'] */
  signals?: NodeJS.Signals[];
  /** Where the one line about the shutdown goes. @defaultValue console.log */
  log?: (line: string) => void;
  /** Injected in tests; @defaultValue process.exit */
  exit?: (code: number) => void;
}

/**
 * Installs the process's one shutdown handler. The first signal calls `close` once (it
 * should stop taking work, finish or hand back what is in progress, and close its
 * connections) and exits 0 when it resolves; if it takes longer than the grace, or
 * fails, the process exits 1. A second signal exits at once (130), the way a person
 * pressing Ctrl-C twice expects; one that comes within `repeatWindowMs` of the first is the
 * same Ctrl-C (see that option). Returns a function that removes the handlers.
 */
export function onShutdown(close: () => Promise<unknown>, options: ShutdownOptions = {}): () => void {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const graceMs = options.graceMs ?? 10 * SECOND;
  const log = options.log ?? ((line: string) => console.log(line));
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const press = stopPresses(options);
  const handler = (signal: NodeJS.Signals) => {
    const meaning = press();
    if (meaning === 'copy') return;
    if (meaning === 'again') {
      log(`${signal} again: exiting now without waiting`);
      exit(130);
      return;
    }
    log(`${signal}: closing (at most ${graceMs} ms)`);
    const timer = setTimeout(() => {
      log(`still closing after ${graceMs} ms: exiting anyway`);
      exit(1);
    }, graceMs);
    timer.unref();
    close().then(
      () => {
        clearTimeout(timer);
        exit(0);
      },
      (err: unknown) => {
        clearTimeout(timer);
        log(`close failed: ${errorMessage(err)}`);
        exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}
