// `pnpm lab NN --walk`: a lesson doc's steps run exactly as a student types them (the doc's own
// commands, in the doc's folder, real processes on the lab's own services, Ctrl-C as SIGINT to the
// command's process group), each compared with what the doc says it shows. One line per step, then
// `N passed, N failed`. Every wait is bounded and names what it waited for; every process the walk
// started is stopped at the end, whatever happened, and one still running then is a failure.
import { randomUUID } from 'node:crypto';
import { formatSummary, SECOND } from '@tasks-lab/lab-kit';
import { portInUse } from '@tasks-lab/infra';
import { parseWalk, type Step } from './doc.ts';
import { clip, DEFAULT_TIMINGS, seconds, StepFailure, StepRunner, type WalkTimings } from './steps.ts';
import {
  makeStateDir,
  portHolder,
  stopGroup,
  terminalEnv,
  walkProcesses,
  type Terminal,
  type TerminalProcess,
} from './terminals.ts';

export { DEFAULT_TIMINGS, type WalkTimings } from './steps.ts';

export interface WalkOptions {
  /** The doc's text, and the path shown in messages (relative to the repository). */
  text: string;
  docName: string;
  /** The repository root: the doc's folder is relative to it. */
  root: string;
  /** The lesson, for the closing step: it must name this lesson's checks. */
  lesson: string;
  /** The lab's folder relative to the root, where `pnpm verify` runs this lesson's checks. */
  labFolder: string;
  /** The ids of the lesson's checks, for a sample of their output. */
  checkIds?: () => Promise<string[]>;
  /** Go on after a failed step (to see every problem at once). @defaultValue false */
  keepGoing?: boolean;
  timings?: Partial<WalkTimings>;
  /** Processes that may outlive the walk (the labs' own Redis and database). */
  keepPids?: () => ReadonlySet<number>;
  print?: (line: string) => void;
  /** Everything the walk's commands print, as it arrives. */
  onOutput?: (text: string) => void;
  /** Aborts the walk (Ctrl-C of the walk itself): the processes are stopped all the same. */
  signal?: AbortSignal;
}

export interface StepResult {
  index: number;
  line: number;
  title: string;
  /** 'skipped' for a step the doc marks as not walked. */
  outcome: 'passed' | 'failed' | 'skipped' | 'not run';
  observed: string;
  ms: number;
}

export interface WalkReport {
  lesson: string;
  doc: string;
  passed: number;
  failed: number;
  notWalked: number;
  steps: StepResult[];
  /** Problems found before or after the steps: the doc's markers, processes left running. */
  problems: string[];
  ms: number;
}

function titleOf(step: Step): string {
  switch (step.kind) {
    case 'run':
      return `${step.terminal}$ ${clip(step.commands[0]!.split('\n')[0]!)}${step.commands.length > 1 ? ` (and ${step.commands.length - 1} more)` : ''}`;
    case 'start':
      return `${step.terminal}$ ${clip(step.command)}   (keeps running)`;
    case 'expect':
      return `${step.terminal ?? '·'}  you should see: ${clip(step.lines.find((l) => l.trim() && l.trim() !== '...')?.trim() ?? '', 70)}`;
    case 'ctrl-c':
      return `${step.terminal}  Ctrl-C`;
    case 'wait':
      return `${step.terminal}  its command ends by itself`;
    case 'ctrl-z':
      return `${step.terminal}  Ctrl-Z`;
    case 'fg':
      return `${step.terminal}$ fg`;
    case 'closing':
      return `the lesson's checks: ${step.commands.join('; ')} (named here; pnpm test runs them)`;
    case 'verify-output':
      return "the sample of the checks' output names real checks";
    case 'skip':
      return `not walked: ${step.reason}`;
  }
}

/** The local ports the doc's commands send requests to (`curl localhost:8000/...`). */
export function portsTalkedTo(steps: readonly Step[]): number[] {
  const commands = steps.flatMap((s) => (s.kind === 'run' ? s.commands : s.kind === 'start' ? [s.command] : []));
  const ports = commands.flatMap((c) =>
    [...c.matchAll(/\b(?:localhost|127\.0\.0\.1):(\d{2,5})\b/g)].map((m) => Number(m[1])),
  );
  return [...new Set(ports)].sort((a, b) => a - b);
}

export async function runWalk(options: WalkOptions): Promise<WalkReport> {
  const started = Date.now();
  const print = options.print ?? console.log;
  const timings = { ...DEFAULT_TIMINGS, ...options.timings };
  const walkId = randomUUID();
  const { folder, steps, problems } = parseWalk(options.text);
  const report: WalkReport = {
    lesson: options.lesson,
    doc: options.docName,
    passed: 0,
    failed: 0,
    notWalked: 0,
    steps: [],
    problems: [],
    ms: 0,
  };
  const fail = (problem: string) => {
    report.problems.push(problem);
    report.failed++;
    print(`✗ ${problem}`);
  };

  print(
    `Walking ${options.docName}: ${steps.length} steps, every terminal starting in ${folder || 'the repository root'}`,
  );
  /** Fails the walk before its first step: every step counts as failed, none ran. */
  const refuse = (reasons: string[], why: string) => {
    for (const reason of reasons) fail(`${options.docName}: ${reason}`);
    report.failed += steps.length;
    print(`${why}: no step was run\n${formatSummary(report)}`);
    report.ms = Date.now() - started;
    return report;
  };
  if (problems.length > 0) return refuse(problems, "the doc's walk markers have problems");

  // A server left running elsewhere (by a lesson not stopped, by hand) would answer the doc's
  // requests instead of the one the doc starts, and the doc's own would fail to listen much later.
  const taken: string[] = [];
  for (const port of portsTalkedTo(steps)) {
    if (!(await portInUse(port))) continue;
    const holder = portHolder(port);
    taken.push(
      `port ${port}, which this doc's commands use, is already taken${holder ? ` (by ${holder})` : ''}: stop that first`,
    );
  }
  if (taken.length > 0) return refuse(taken, 'a port the doc needs is taken');

  const state = makeStateDir();
  const runner = new StepRunner({
    docName: options.docName,
    root: options.root,
    folder,
    lesson: options.lesson,
    labFolder: options.labFolder,
    checkIds: options.checkIds,
    timings,
    env: terminalEnv(process.env, walkId),
    stateDir: state.dir,
    onOutput: options.onOutput,
    signal: options.signal,
  });
  let stopped = false;

  const onAbort = () => print('interrupted: stopping every process the walk started');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (const [i, step] of steps.entries()) {
      const label = `step ${i + 1}/${steps.length}  ${titleOf(step)}`;
      if (stopped || options.signal?.aborted) {
        report.steps.push({
          index: i + 1,
          line: step.line,
          title: titleOf(step),
          outcome: 'not run',
          observed: 'not run: an earlier step failed',
          ms: 0,
        });
        report.failed++;
        continue;
      }
      if (step.kind === 'skip') {
        report.notWalked++;
        report.steps.push({
          index: i + 1,
          line: step.line,
          title: titleOf(step),
          outcome: 'skipped',
          observed: step.reason,
          ms: 0,
        });
        print(`– ${label}  (${options.docName}:${step.line})`);
        continue;
      }
      const t0 = Date.now();
      try {
        const observed = await runner.run(step);
        report.passed++;
        report.steps.push({
          index: i + 1,
          line: step.line,
          title: titleOf(step),
          outcome: 'passed',
          observed,
          ms: Date.now() - t0,
        });
        print(`✓ ${label} … ok (${observed})`);
      } catch (err) {
        if (!(err instanceof StepFailure)) throw err;
        report.failed++;
        report.steps.push({
          index: i + 1,
          line: step.line,
          title: titleOf(step),
          outcome: 'failed',
          observed: err.message,
          ms: Date.now() - t0,
        });
        print(`✗ ${label} … FAILED at ${options.docName}:${step.line}\n    ${err.message}`);
        if (!options.keepGoing) stopped = true;
      }
    }
    const notRun = report.steps.filter((s) => s.outcome === 'not run').length;
    if (notRun > 0)
      print(`  ${notRun} later step(s) not run: each builds on the ones before it (--keep-going runs them anyway)`);
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    // Only a walk that reached its end can say the doc forgot to stop something: after a failed
    // step, what still runs is the walk's to stop, not the doc's.
    const finished = !stopped && !options.signal?.aborted;
    await stopEverything(
      runner.terminals,
      runner.processes,
      walkId,
      options.keepPids?.() ?? new Set(),
      fail,
      options.docName,
      finished,
      print,
    );
    state.remove();
  }
  report.ms = Date.now() - started;
  print(
    `${formatSummary(report)}${report.notWalked > 0 ? ` (${report.notWalked} not walked)` : ''}, in ${seconds(report.ms)}`,
  );
  return report;
}

/**
 * The end of every walk: a command still running is one the doc never says to stop (a student would
 * be left with a worker, or a server holding its port for the next lesson); a process still alive
 * after its group was stopped escaped it. Each is a failure, and each is stopped.
 */
async function stopEverything(
  terminals: Map<string, Terminal>,
  processes: TerminalProcess[],
  walkId: string,
  keep: ReadonlySet<number>,
  fail: (problem: string) => void,
  docName: string,
  finished: boolean,
  print: (line: string) => void,
): Promise<void> {
  for (const t of terminals.values()) {
    if (!t.running?.running) continue;
    if (finished)
      fail(
        `${docName}: terminal ${t.name} still runs \`${t.runningCommand}\` at the end: the doc never says to stop it (stopped now)`,
      );
    else print(`  stopping \`${t.runningCommand}\` in terminal ${t.name}`);
    await stopGroup(t.running);
  }
  for (const proc of processes) if (proc.groupAlive()) await stopGroup(proc, 2 * SECOND);
  const escaped = walkProcesses(walkId, keep);
  for (const { pid, command } of escaped) {
    fail(
      `${docName}: a process the walk started was still running after its terminal was stopped: pid ${pid} ${command} (killed now)`,
    );
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}
