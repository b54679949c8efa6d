// Entry points and graceful exit, the same way in every lab process.
//   runMain(import.meta.url, main)      runs main() only when this file is the entry point
//   onShutdown(close, { graceMs })      SIGTERM / SIGINT: close once, bounded; a second signal forces exit
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

export interface ShutdownOptions {
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
 * pressing Ctrl-C twice expects. Returns a function that removes the handlers.
 */
export function onShutdown(close: () => Promise<unknown>, options: ShutdownOptions = {}): () => void {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const graceMs = options.graceMs ?? 10 * SECOND;
  const log = options.log ?? ((line: string) => console.log(line));
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let closing = false;
  const handler = (signal: NodeJS.Signals) => {
    if (closing) {
      log(`${signal} again: exiting now without waiting`);
      exit(130);
      return;
    }
    closing = true;
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
