// One step of a walk, done as a student does it: type a command in a terminal, wait for a ready
// line, read what a terminal printed, press Ctrl-C or Ctrl-Z. A step that does not go as the doc
// says throws a StepFailure whose message says what was expected, what was seen, and how long it
// waited; the walk prints it under the step's line.
import { join } from 'node:path';
import { SECOND, sleep } from '@tasks-lab/lab-kit';
import type { Step } from './doc.ts';
import { matchBlock, outputLines } from './expect.ts';
import { Bindings } from './placeholders.ts';
import { exitStatus, stopGroup, Terminal, type TerminalProcess } from './terminals.ts';

/** How long each kind of step may take when its marker does not say. */
export interface WalkTimings {
  /** A command that runs to its end. @defaultValue 120000 */
  runMs: number;
  /** A command that keeps running, until its ready line. @defaultValue 60000 */
  readyMs: number;
  /** Output a running command has not printed yet. @defaultValue 30000 */
  expectMs: number;
  /** The exit after Ctrl-C (a graceful close). @defaultValue 30000 */
  ctrlCMs: number;
  /** A command that ends by itself. @defaultValue 60000 */
  waitMs: number;
}

export const DEFAULT_TIMINGS: WalkTimings = {
  runMs: 120 * SECOND,
  readyMs: 60 * SECOND,
  expectMs: 30 * SECOND,
  ctrlCMs: 30 * SECOND,
  waitMs: 60 * SECOND,
};

export class StepFailure extends Error {}

export const seconds = (ms: number) => `${(ms / SECOND).toFixed(1)} s`;
export const clip = (text: string, max = 90) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The last lines a terminal printed, indented, for a failure's details. */
function tail(terminal: Terminal | undefined, lines = 12): string {
  if (!terminal) return '';
  const all = outputLines(terminal.output).filter((l, i, a) => l !== '' || i < a.length - 1);
  const shown = all.slice(-lines);
  return shown.length === 0
    ? '\n    (it printed nothing)'
    : `\n    it printed${all.length > lines ? ` (last ${lines} lines)` : ''}:\n${shown.map((l) => `      | ${l}`).join('\n')}`;
}

export interface StepContext {
  docName: string;
  root: string;
  /** The folder every terminal starts in, relative to the root. */
  folder: string;
  lesson: string;
  labFolder: string;
  checkIds?: () => Promise<string[]>;
  timings: WalkTimings;
  env: Record<string, string>;
  stateDir: string;
  onOutput?: (text: string) => void;
  signal?: AbortSignal;
}

/** The walk's terminals and what it has learned so far (the bound placeholders), and each step. */
export class StepRunner {
  readonly terminals = new Map<string, Terminal>();
  readonly processes: TerminalProcess[] = [];
  private bindings = new Bindings();
  private lastTerminal: string | undefined;

  constructor(private readonly context: StepContext) {}

  /** Does the step; returns what was observed, or throws a StepFailure. */
  async run(step: Step): Promise<string> {
    switch (step.kind) {
      case 'run':
        return this.runCommands(step);
      case 'start':
        return this.startCommand(step);
      case 'expect':
        return this.expectOutput(step);
      case 'ctrl-c':
      case 'wait':
        return this.awaitExit(step);
      case 'ctrl-z':
      case 'fg':
        return this.suspendOrResume(step);
      case 'closing':
        return this.checkClosing(step);
      case 'verify-output':
        return this.checkVerifyOutput(step);
      case 'skip':
        return step.reason;
    }
  }

  private terminal(name: string): Terminal {
    let t = this.terminals.get(name);
    if (!t) {
      const { root, folder, env, stateDir, onOutput } = this.context;
      this.terminals.set(name, (t = new Terminal(name, join(root, folder), env, stateDir, this.processes, onOutput)));
    }
    return t;
  }

  private async pause(ms: number): Promise<void> {
    if (this.context.signal?.aborted) throw new StepFailure('the walk was interrupted');
    await sleep(ms);
  }

  /** A terminal that can take a new command: one still running its last is busy, as a real one is. */
  private idleTerminal(name: string): Terminal {
    const t = this.terminal(name);
    if (t.running?.running)
      throw new StepFailure(
        `terminal ${name} is still running \`${t.runningCommand}\`: a student would need another terminal, or to stop it first`,
      );
    this.lastTerminal = name;
    return t;
  }

  private async runCommands(step: Extract<Step, { kind: 'run' }>): Promise<string> {
    const t = this.idleTerminal(step.terminal);
    t.beginRun();
    const timeoutMs = step.timeoutMs ?? this.context.timings.runMs;
    for (const command of step.commands) {
      const actual = this.bindings.substitute(command);
      const t0 = Date.now();
      const { status } = await t.run(actual, timeoutMs);
      if (status === undefined)
        throw new StepFailure(`\`${clip(actual)}\` did not finish within ${seconds(timeoutMs)} (stopped)${tail(t)}`);
      if (status !== step.exit)
        throw new StepFailure(`\`${clip(actual)}\` exited with ${status}, the doc expects ${step.exit}${tail(t)}`);
      if (step.commands.length === 1) return `exit ${status} in ${seconds(Date.now() - t0)}`;
    }
    return `all ${step.commands.length} commands exited ${step.exit}`;
  }

  private async startCommand(step: Extract<Step, { kind: 'start' }>): Promise<string> {
    const t = this.idleTerminal(step.terminal);
    const t0 = Date.now();
    const proc = t.start(this.bindings.substitute(step.command));
    const timeoutMs = step.timeoutMs ?? this.context.timings.readyMs;
    while (!outputLines(t.output).some((line) => line.includes(step.ready))) {
      if (!proc.running)
        throw new StepFailure(
          `it exited with ${exitStatus(proc.exit!)} before printing its ready line "${step.ready}"${tail(t)}`,
        );
      if (Date.now() - t0 > timeoutMs) {
        await stopGroup(proc);
        throw new StepFailure(
          `it did not print its ready line "${step.ready}" within ${seconds(timeoutMs)} (stopped)${tail(t)}`,
        );
      }
      await this.pause(50);
    }
    return `ready in ${seconds(Date.now() - t0)}`;
  }

  /**
   * Compares the block with what the terminal printed since its last expect: at once for a finished
   * command; for a running one, again as output arrives, until it matches or the bound passes.
   */
  private async expectOutput(step: Extract<Step, { kind: 'expect' }>): Promise<string> {
    const name = step.terminal ?? this.lastTerminal;
    if (!name) throw new StepFailure('no command has run yet, so there is no output to compare');
    const t = this.terminal(name);
    this.bindings.declare(step.vary);
    const withinMs = step.withinMs ?? this.context.timings.expectMs;
    const deadline = Date.now() + withinMs;
    for (;;) {
      const live = t.running?.running === true;
      const lines = outputLines(t.output);
      if (live) lines.pop(); // the last line may still be growing
      const result = matchBlock(step.lines, lines, this.bindings, t.cursor);
      if (result.ok) {
        this.bindings = result.bindings;
        t.cursor = result.end;
        return live ? `seen in ${name}'s running command` : `seen in ${name}'s output`;
      }
      if (!live || Date.now() > deadline) {
        const waited = live ? ` (waited ${seconds(withinMs)} for it)` : '';
        const seen = result.seen === undefined ? '(the output ended)' : result.seen;
        const why = result.why ? `\n    why:   ${result.why}` : '';
        throw new StepFailure(
          `expected (${this.context.docName}:${step.firstLine + result.expectedIndex}): ${result.expected}\n    seen:  ${seen}${why}${waited}${tail(t)}`,
        );
      }
      await this.pause(100);
    }
  }

  /** Ctrl-C (SIGINT to the group, as a terminal sends it) or a wait, then the exit the doc expects. */
  private async awaitExit(step: Extract<Step, { kind: 'ctrl-c' | 'wait' }>): Promise<string> {
    const t = this.terminal(step.terminal);
    const proc = t.running;
    if (!proc) throw new StepFailure(`nothing was started in terminal ${step.terminal}`);
    if (step.kind === 'ctrl-c' && !proc.running)
      throw new StepFailure(
        `\`${t.runningCommand}\` had already exited with ${exitStatus(proc.exit!)} before the Ctrl-C${tail(t)}`,
      );
    this.lastTerminal = step.terminal;
    const t0 = Date.now();
    if (step.kind === 'ctrl-c') proc.signalGroup('SIGINT');
    const { ctrlCMs, waitMs } = this.context.timings;
    const timeoutMs = step.timeoutMs ?? (step.kind === 'ctrl-c' ? ctrlCMs : waitMs);
    const exit = await proc.waitForExit(timeoutMs);
    if (!exit) {
      await stopGroup(proc);
      throw new StepFailure(
        `\`${t.runningCommand}\` was still running ${seconds(timeoutMs)} ${step.kind === 'ctrl-c' ? 'after the Ctrl-C' : 'later'} (stopped)${tail(t)}`,
      );
    }
    const status = exitStatus(exit);
    if (status !== step.exit)
      throw new StepFailure(`\`${t.runningCommand}\` exited with ${status}, the doc expects ${step.exit}${tail(t)}`);
    return `exited ${status} in ${seconds(Date.now() - t0)}`;
  }

  private async suspendOrResume(step: Extract<Step, { kind: 'ctrl-z' | 'fg' }>): Promise<string> {
    const proc = this.terminal(step.terminal).running;
    if (!proc?.running)
      throw new StepFailure(
        `nothing runs in terminal ${step.terminal} to ${step.kind === 'fg' ? 'resume' : 'suspend'}`,
      );
    this.lastTerminal = step.terminal;
    // A terminal's Ctrl-Z is SIGTSTP to the foreground group. The walk's groups have no controlling
    // terminal (each is a session of its own), and Linux ignores a SIGTSTP whose default action would
    // stop such an orphaned group, so the walk stops it with SIGSTOP: the same effect on the job.
    // `fg` is SIGCONT, as the shell sends it.
    const resume = step.kind === 'fg';
    proc.signalGroup(resume ? 'SIGCONT' : 'SIGSTOP');
    const timeoutMs = this.context.timings.waitMs;
    if (!(await proc.waitForGroupStopped(!resume, timeoutMs)))
      throw new StepFailure(
        `\`${this.terminal(step.terminal).runningCommand}\` was not ${resume ? 'running again' : 'stopped'} ${seconds(timeoutMs)} after the ${resume ? 'SIGCONT' : 'SIGSTOP'}`,
      );
    return resume ? 'resumed' : 'suspended';
  }

  /** The closing step is named, not run: pnpm test runs every lesson's verify itself. */
  private checkClosing(step: Extract<Step, { kind: 'closing' }>): string {
    const { lesson: n, folder, labFolder } = this.context;
    const allowed = folder === labFolder ? ['pnpm verify', `pnpm -w lab ${n}`] : [`pnpm lab ${n}`, `pnpm -w lab ${n}`];
    const named = step.commands.length === 1 && allowed.includes(step.commands[0]!.replace(/\s+#.*$/, '').trim());
    if (!named)
      throw new StepFailure(
        `the closing step must run lesson ${n}'s checks with one of: ${allowed.join(', ')}; it shows: ${step.commands.join('; ')}`,
      );
    return "names this lesson's checks";
  }

  private async checkVerifyOutput(step: Extract<Step, { kind: 'verify-output' }>): Promise<string> {
    const { lesson } = this.context;
    const ids = new Set((await this.context.checkIds?.()) ?? []);
    // A check's id stands right after its name, before the observation (`✓ pass  <name> [<id>] — …`);
    // an observation may quote other ids (lesson 07's record names lab 02's checks).
    const shown = step.lines.flatMap(
      (line) => /^\s*[✓✗] (?:pass|FAIL)\s.*?\[([a-z0-9]+(?:-[a-z0-9]+)+)\] —/.exec(line)?.[1] ?? [],
    );
    const unknown = shown.filter((id) => !ids.has(id));
    if (unknown.length > 0)
      throw new StepFailure(
        `the sample names checks lesson ${lesson} does not have: ${unknown.join(', ')} (its checks: ${[...ids].join(', ')})`,
      );
    const summary = step.lines.map((line) => /^(\d+) passed, 0 failed$/.exec(line.trim())).find(Boolean);
    if (summary && Number(summary[1]) !== ids.size)
      throw new StepFailure(`the sample says ${summary[1]} passed; lesson ${lesson} has ${ids.size} checks`);
    return `${shown.length} check ids, all real`;
  }
}
