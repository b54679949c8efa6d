// Real processes for the drills: start a TypeScript entry point in its own Node
// process, wait for a line it prints, and kill it for real.
import { spawn, type ChildProcess } from 'node:child_process';
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
  /** Resolves when the process has exited. */
  readonly exited: Promise<Exit>;
  /** Sends `signal` (SIGKILL by default: no clean-up runs) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<Exit>;
}

export interface StartOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Starts `node --import tsx <script>` as a separate OS process. */
export function startTsProcess(script: string, options: StartOptions = {}): LabProcess {
  const child = spawn(process.execPath, ['--import', tsxLoader, script, ...(options.args ?? [])], {
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
  });

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
        child.off('exit', onExit);
      };
      listeners.add(check);
      child.once('exit', onExit);
      check();
    });

  return {
    child,
    pid: child.pid ?? -1,
    output: () => text,
    waitForOutput,
    exited,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
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
