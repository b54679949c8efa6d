// The walk's terminals (A, B, C ...), each as a student's terminal would be: commands run in bash, in
// the terminal's folder, with the variables it exported; each command is the leader of its own
// process group, like a terminal's foreground job, so Ctrl-C is SIGINT to that whole group (pnpm,
// the shell, the lab process). Every process a walk starts carries TASKS_LAB_WALK in its
// environment, so one that escaped its group is still found and stopped at the end.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SECOND, sleep } from '@tasks-lab/lab-kit';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How long output may trail a command's exit (what is still in the pipes). */
const PIPE_DRAIN_MS = 300;

/** An exit as a shell reports it: the code, or 128 + the signal's number. */
export function exitStatus(exit: Exit): number {
  if (exit.code !== null) return exit.code;
  const numbers: Partial<Record<NodeJS.Signals, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGQUIT: 3,
    SIGKILL: 9,
    SIGSEGV: 11,
    SIGTERM: 15,
  };
  return 128 + (exit.signal ? (numbers[exit.signal] ?? 0) : 0);
}

/** Variables a student's terminal does not have: pnpm's and npm's own, CI's, the runner's. */
const NOT_IN_A_TERMINAL =
  /^(npm_|PNPM_|pnpm_|INIT_CWD$|CI$|LAB_FAULTS$|LAB_EXERCISE$|TASKS_LAB_RUN_STARTED$|FORCE_COLOR$|NODE_OPTIONS$|TURBO_|VITEST)/;

/** The environment of a new terminal: this process's, without what pnpm added when it started us. */
export function terminalEnv(base: NodeJS.ProcessEnv, walkId: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base))
    if (value !== undefined && !NOT_IN_A_TERMINAL.test(key)) env[key] = value;
  // pnpm puts every node_modules/.bin on PATH for its scripts; a student's PATH has none of them.
  env.PATH = (base.PATH ?? '')
    .split(':')
    .filter((dir) => dir && !dir.includes('node_modules/.bin'))
    .join(':');
  env.TASKS_LAB_WALK = walkId;
  return env;
}

/** A command started in a terminal, in its own process group. */
export class TerminalProcess {
  readonly exited: Promise<Exit>;
  private readonly child: ChildProcess;
  exit?: Exit;

  constructor(script: string, cwd: string, env: Record<string, string>, onOutput: (text: string) => void) {
    // One stream, as a terminal shows it: stderr goes into stdout's pipe, so lines written on the two
    // a moment apart keep their order (two pipes are read separately and can swap them).
    this.child = spawn('bash', ['-c', `exec 2>&1\n${script}`], {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (chunk: Buffer) => onOutput(chunk.toString('utf8')));
    this.child.stderr?.on('data', (chunk: Buffer) => onOutput(chunk.toString('utf8')));
    this.exited = new Promise<Exit>((resolve) => {
      // 'close' waits for every holder of the output pipes: a command that left something running in
      // the background (`setsid sleep 300 &`) would keep it open. A terminal returns at the shell's
      // exit, so this does too, after giving the pipes a moment to deliver what is left in them.
      this.child.once('exit', (code, signal) => {
        const settle = () => resolve((this.exit ??= { code, signal }));
        const late = setTimeout(settle, PIPE_DRAIN_MS);
        this.child.once('close', () => {
          clearTimeout(late);
          settle();
        });
      });
      this.child.once('error', (err) => {
        onOutput(`\n[walk] could not start bash: ${err.message}\n`);
        resolve((this.exit = { code: 127, signal: null }));
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** Sends `signal` to the whole process group, as a terminal does; false when the group is gone. */
  signalGroup(signal: NodeJS.Signals): boolean {
    if (this.child.pid === undefined) return false;
    try {
      process.kill(-this.child.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Waits until every live process of the group is stopped (`stopped` true) or none is (false), up to
   * `timeoutMs`; false when that did not happen in time. A signal is delivered asynchronously: a shell
   * reports a job stopped or continued only once the kernel says so (waitpid), and a command run right
   * after a Ctrl-Z that reads the job's state would otherwise race the delivery on a loaded machine.
   */
  async waitForGroupStopped(stopped: boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = this.child.pid === undefined ? [] : groupStates(this.child.pid);
      if (states.every((state) => isStoppedState(state) === stopped)) return true;
      if (Date.now() >= deadline) return false;
      await sleep(10);
    }
  }

  /** True while any process of the group is alive (the leader may have exited before its children). */
  groupAlive(): boolean {
    return this.signalGroup(0 as unknown as NodeJS.Signals);
  }

  /** Waits for the exit, up to `timeoutMs`; undefined when it did not come. */
  async waitForExit(timeoutMs: number): Promise<Exit | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
    const exit = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    return exit;
  }
}

/** One terminal: its folder and exported variables, what it printed, and what runs in it. */
export class Terminal {
  /** Everything printed since the last run started (a run replaces it; a running command adds to it). */
  output = '';
  /** How far an expect on this terminal has read `output`, in lines. */
  cursor = 0;
  running?: TerminalProcess;
  /** The command that is running, as the doc shows it. */
  runningCommand?: string;

  constructor(
    readonly name: string,
    private cwd: string,
    private env: Record<string, string>,
    private readonly stateDir: string,
    private readonly processes: TerminalProcess[],
    /** Sees everything every command prints (the walk looks for leaked passwords in it). */
    private readonly sink: (text: string) => void = () => {},
  ) {}

  private spawnCommand(script: string): TerminalProcess {
    const proc = new TerminalProcess(script, this.cwd, this.env, (text) => {
      this.output += text;
      this.sink(text);
    });
    this.processes.push(proc);
    return proc;
  }

  /**
   * Runs one command to its end. Afterwards the terminal keeps the folder it `cd`'d to and the
   * variables it set (bash's `set -a` exports every assignment), as a terminal would.
   */
  async run(command: string, timeoutMs: number): Promise<{ exit?: Exit; status?: number }> {
    const stateFile = join(this.stateDir, `${this.name}-state`);
    rmSync(stateFile, { force: true });
    const script = [
      'set -a',
      command,
      '__walk_status=$?',
      `{ pwd; env -0; } > ${JSON.stringify(stateFile)} 2>/dev/null`,
      'exit $__walk_status',
    ].join('\n');
    const proc = this.spawnCommand(script);
    const exit = await proc.waitForExit(timeoutMs);
    if (!exit) {
      await stopGroup(proc);
      return {};
    }
    this.readState(stateFile);
    return { exit, status: exitStatus(exit) };
  }

  private readState(stateFile: string): void {
    let text: string;
    try {
      text = readFileSync(stateFile, 'utf8');
    } catch {
      return; // the command ended the shell itself (exit, exec): the terminal keeps its state
    }
    const newline = text.indexOf('\n');
    this.cwd = text.slice(0, newline);
    const env: Record<string, string> = {};
    for (const entry of text.slice(newline + 1).split('\0')) {
      const eq = entry.indexOf('=');
      if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    for (const key of ['__walk_status', '_', 'SHLVL', 'PWD', 'OLDPWD']) delete env[key];
    this.env = env;
  }

  /** Starts a command that keeps running; the terminal is busy until it ends. */
  start(command: string): TerminalProcess {
    this.output = '';
    this.cursor = 0;
    this.running = this.spawnCommand(command);
    this.runningCommand = command;
    return this.running;
  }

  /** Clears what the previous run printed before a new run. */
  beginRun(): void {
    this.output = '';
    this.cursor = 0;
  }
}

/** SIGTERM to the group, a grace, then SIGKILL; resolves once the group is gone (or after the kill). */
export async function stopGroup(proc: TerminalProcess, graceMs = 5 * SECOND): Promise<void> {
  if (!proc.groupAlive()) return;
  proc.signalGroup('SIGTERM');
  proc.signalGroup('SIGCONT'); // a suspended job (Ctrl-Z) handles its SIGTERM only once it runs again
  const deadline = Date.now() + graceMs;
  while (proc.groupAlive() && Date.now() < deadline) await sleep(50);
  if (proc.groupAlive()) proc.signalGroup('SIGKILL');
  await proc.waitForExit(graceMs);
}

/** A process's state letter from /proc/<pid>/stat: "T" stopped by a signal, "t" traced, "Z" a zombie. */
function isStoppedState(state: string): boolean {
  return state === 'T' || state === 't';
}

/** The state letters of the live (not zombie) processes whose process group is `pgid` (Linux: /proc). */
function groupStates(pgid: number): string[] {
  const states: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return states;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After the command's name in parentheses: state, ppid, pgrp, ...
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') states.push(state!);
    } catch {
      /* gone while we looked */
    }
  }
  return states;
}

/** Processes still alive whose environment carries this walk's id (Linux: /proc), except `keep`. */
export function walkProcesses(walkId: string, keep: ReadonlySet<number>): Array<{ pid: number; command: string }> {
  const marker = `TASKS_LAB_WALK=${walkId}`;
  const found: Array<{ pid: number; command: string }> = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid || keep.has(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(marker)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue; // a zombie is already dead
      found.push({
        pid,
        command: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 160),
      });
    } catch {
      /* gone while we looked, or not ours to read */
    }
  }
  return found;
}

/** Who listens on a TCP port, as `ss` names it ("node, pid 4242"), or undefined when that is unknown. */
export function portHolder(port: number): string | undefined {
  const result = spawnSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8', timeout: 5_000 });
  const match = /users:\(\("([^"]+)",pid=(\d+)/.exec(result.stdout ?? '');
  return match ? `${match[1]}, pid ${match[2]}` : undefined;
}

/** A folder for the terminals' state files, removed at the end of the walk. */
export function makeStateDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'tasks-lab-walk-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
