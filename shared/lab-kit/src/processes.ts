// Real processes for the drills: start a TypeScript entry point in its own Node
// process, wait for the line that says it is ready, stop it gracefully (SIGTERM, a
// bounded grace, then SIGKILL) or kill it outright, and always wait for the exit.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Resources } from './resources.ts';
import { SECOND } from './time.ts';

const tsxLoader = import.meta.resolve('tsx');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface LabProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything the process printed so far (stdout and stderr interleaved). */
  output(): string;
  /** Resolves with the first match of `pattern` in the output, or rejects after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves when the process has exited (or could not start: then code is null and signal null). */
  readonly exited: Promise<Exit>;
  /** Sends `signal` (SIGKILL by default: no clean-up runs) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<Exit>;
  /**
   * Asks the process to stop (SIGTERM), waits up to `graceMs` for it to exit by
   * itself, then SIGKILLs it. Resolves with the exit either way.
   */
  stop(graceMs?: number): Promise<Exit>;
}

export interface StartOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * Node's own flags, before the loader: for those NODE_OPTIONS refuses, such as the
   * profiler's `--cpu-prof`. @defaultValue none
   */
  nodeArgs?: string[];
}

/** Starts `node --import tsx <script>` as a separate OS process. */
export function startTsProcess(script: string, options: StartOptions = {}): LabProcess {
  const argv = [...(options.nodeArgs ?? []), '--import', tsxLoader, script, ...(options.args ?? [])];
  const child = spawn(process.execPath, argv, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    // Without an 'error' listener a failed spawn (or a failed kill) would crash the caller.
    child.once('error', (err) => {
      text += `\n[spawn error] ${err.message}\n`;
      if (child.pid === undefined) resolve({ code: null, signal: null });
    });
  });
  const running = () => child.exitCode === null && child.signalCode === null && child.pid !== undefined;

  const waitForOutput = (pattern: RegExp, timeoutMs = 15 * SECOND) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = text.match(pattern);
        if (match) {
          done();
          resolve(match);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`process ${child.pid} did not print ${pattern} within ${timeoutMs} ms; it printed:\n${text}`));
      }, timeoutMs);
      const onExit = () => {
        check();
        done();
        reject(new Error(`process ${child.pid} exited before printing ${pattern}; it printed:\n${text}`));
      };
      const done = () => {
        clearTimeout(timer);
        listeners.delete(check);
        void exited.then(() => undefined); // keep the promise observed
        child.off('exit', onExit);
      };
      listeners.add(check);
      child.once('exit', onExit);
      check();
    });

  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (running()) child.kill(signal);
    return exited;
  };

  return {
    child,
    pid: child.pid ?? -1,
    output: () => text,
    waitForOutput,
    exited,
    kill,
    async stop(graceMs = 5 * SECOND) {
      if (!running()) return exited;
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), graceMs);
      });
      const first = await Promise.race([exited, late]);
      clearTimeout(timer);
      return first === 'late' ? kill('SIGKILL') : first;
    },
  };
}

export interface LaunchOptions extends StartOptions {
  /** The line that says the process is ready, e.g. /worker \d+ ready/. */
  ready: RegExp;
  /** @defaultValue 30000 */
  readyTimeoutMs?: number;
  /**
   * The scope that owns the process: it is SIGKILLed when the scope closes (or its
   * signal aborts), so a check that fails or times out never leaves it running.
   */
  resources?: Resources;
}

/**
 * Starts a lab process and waits for its ready line. If it never gets ready, it is
 * killed and the error says what it printed. With `resources`, the scope owns it.
 */
export async function launchProcess(script: string, options: LaunchOptions): Promise<LabProcess> {
  const proc = startTsProcess(script, options);
  options.resources?.add(proc, (p) => p.kill('SIGKILL'));
  try {
    options.resources?.throwIfAborted();
    await proc.waitForOutput(options.ready, options.readyTimeoutMs ?? 30 * SECOND);
    return proc;
  } catch (err) {
    await proc.kill('SIGKILL');
    throw err;
  }
}

/** True while a process with this pid exists (signal 0 only asks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
