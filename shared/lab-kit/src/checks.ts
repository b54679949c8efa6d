// Every lab's verify script is a list of checks. A check gathers evidence by running
// something real (a scenario), then judges it: pass or fail, and what it observed.
// The runner prints one line per check and a closing "N passed, N failed" line,
// writes the outcome to .lab-result.json (so `pnpm lab` remembers it), and sets a
// non-zero exit code when any check failed.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { errorMessage } from './errors.ts';
import { stopPresses } from './main.ts';
import { declaredOptionNames } from './options.ts';
import { SECOND } from './time.ts';

export interface CheckOutcome {
  ok: boolean;
  /** What the check saw, in a few words a student can compare with the lesson doc. */
  observed: string;
}

export interface Check {
  /**
   * A stable, kebab-case id, unique within the lab ("illegal-transition-rejected").
   * Tests, coverage data and `pnpm lab --repeat` refer to a check by its id, never by
   * its wording, so the wording can improve without breaking them.
   */
  id: string;
  /** The learning check, as the lesson doc words it. */
  name: string;
  /**
   * Runs the check. `signal` aborts when the time limit passes: everything the check
   * started (processes, connections, servers) must be tied to it (see withResources),
   * so that a timed-out check leaves nothing behind to disturb the next one.
   */
  run: (signal: AbortSignal) => CheckOutcome | Promise<CheckOutcome>;
  /** A check that takes longer than this fails instead of hanging the verify. @defaultValue 60000 */
  timeoutMs?: number;
}

export interface CheckResult extends CheckOutcome {
  id: string;
  name: string;
  ms: number;
}

export interface CheckReport {
  results: CheckResult[];
  passed: number;
  failed: number;
}

export const pass = (observed: string): CheckOutcome => ({ ok: true, observed });
export const fail = (observed: string): CheckOutcome => ({ ok: false, observed });

/** `ok` decides; `observed` is printed either way. */
export const outcome = (ok: boolean, observed: string): CheckOutcome => ({ ok, observed });

/** The reason a check's signal carries when its time limit passed. */
export class CheckTimeoutError extends Error {
  override name = 'CheckTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/**
 * The shape every lab's checks take (lesson 09's): a scenario gathers typed evidence
 * by running the real thing; a judge decides from that evidence alone. Keeping the two
 * apart means a judge never runs anything, and a scenario never decides anything.
 */
export interface CheckSpec<E> {
  id: string;
  name: string;
  timeoutMs?: number;
  scenario: (signal: AbortSignal) => E | Promise<E>;
  judge: (evidence: E) => CheckOutcome;
}

export function defineCheck<E>(spec: CheckSpec<E>): Check {
  return {
    id: spec.id,
    name: spec.name,
    timeoutMs: spec.timeoutMs,
    run: async (signal) => spec.judge(await spec.scenario(signal)),
  };
}

/**
 * Several checks that judge one experiment differently (one HTTP round trip, say) share
 * its evidence: the scenario runs once, on first use, and each check judges it.
 */
export function sharedScenario<E>(scenario: (signal: AbortSignal) => Promise<E>): (signal: AbortSignal) => Promise<E> {
  let running: Promise<E> | undefined;
  return (signal) => (running ??= scenario(signal));
}

/** The check with this id, or an error listing the ids there are (for the can-fail tests). */
export function findCheck(checks: readonly Check[], id: string): Check {
  const found = checks.find((check) => check.id === id);
  if (!found) throw new Error(`no check with id "${id}"; the ids are: ${checks.map((c) => c.id).join(', ')}`);
  return found;
}

const CHECK_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Ids must be kebab-case and unique: they are how everything else refers to a check. */
export function checkIdProblems(checks: readonly Check[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const { id } of checks) {
    if (!CHECK_ID.test(id)) problems.push(`check id "${id}" is not kebab-case`);
    if (seen.has(id)) problems.push(`check id "${id}" is used twice`);
    seen.add(id);
  }
  return problems;
}

export interface RunCheckOptions {
  /**
   * After a timeout, how long to wait for the check to finish cleaning up (its
   * resources close when the signal aborts) before the next check starts.
   * @defaultValue 15000
   */
  cleanupGraceMs?: number;
  /** Stops the check from outside (verify got Ctrl-C): it is aborted and cleaned up like a timeout. */
  signal?: AbortSignal;
  /** The command that reruns one check, printed under each failed check's line (runVerify's: rerunCommand). */
  rerun?: (id: string) => string;
}

/** Why a check stopped early: its own time limit, or the caller's signal. */
type Stop = { settled: false; why: string };

/**
 * Runs one check with a time limit; a thrown error is a failed check, not a crash.
 * When the limit passes (or the caller's signal aborts), the check's signal aborts,
 * and runCheck waits (up to the cleanup grace) for the check to settle, so that the
 * processes and connections it started are gone before the next check begins.
 */
export async function runCheck(check: Check, options: RunCheckOptions = {}): Promise<CheckResult> {
  const started = Date.now();
  const timeoutMs = check.timeoutMs ?? 60 * SECOND;
  const cleanupGraceMs = options.cleanupGraceMs ?? 15 * SECOND;
  const controller = new AbortController();
  const result = (o: CheckOutcome): CheckResult => ({ id: check.id, name: check.name, ...o, ms: Date.now() - started });

  const running = Promise.resolve()
    .then(() => check.run(controller.signal))
    .then(
      (o) => ({ settled: true as const, outcome: o }),
      (err: unknown) => ({ settled: true as const, outcome: fail(`threw: ${errorMessage(err)}`) }),
    );
  let timer: NodeJS.Timeout | undefined;
  let onOuterAbort: (() => void) | undefined;
  const stopped = new Promise<Stop>((resolve) => {
    timer = setTimeout(() => resolve({ settled: false, why: `no answer within ${timeoutMs} ms` }), timeoutMs);
    onOuterAbort = () => resolve({ settled: false, why: `stopped: ${errorMessage(options.signal?.reason)}` });
    if (options.signal?.aborted) onOuterAbort();
    else options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  });
  const first = await Promise.race([running, stopped]);
  clearTimeout(timer);
  if (onOuterAbort) options.signal?.removeEventListener('abort', onOuterAbort);
  if (first.settled) return result(first.outcome);

  controller.abort(new CheckTimeoutError(timeoutMs));
  let graceTimer: NodeJS.Timeout | undefined;
  const cleaned = await Promise.race([
    running.then(() => true),
    new Promise<false>((resolve) => {
      graceTimer = setTimeout(() => resolve(false), cleanupGraceMs);
    }),
  ]);
  clearTimeout(graceTimer);
  const after = cleaned ? 'its resources were released' : `it was still cleaning up ${cleanupGraceMs} ms later`;
  return result(fail(`${first.why}; ${after}`));
}

export function formatResult(result: CheckResult): string {
  const mark = result.ok ? '✓ pass' : '✗ FAIL';
  return `${mark}  ${result.name} [${result.id}] — observed: ${result.observed}`;
}

export function formatSummary(report: Pick<CheckReport, 'passed' | 'failed'>): string {
  return `${report.passed} passed, ${report.failed} failed`;
}

/** Runs checks one after another (timings stay honest) and prints each line as it finishes. */
export async function runChecks(
  checks: Check[],
  print: (line: string) => void = (line) => console.log(line),
  options: RunCheckOptions = {},
): Promise<CheckReport> {
  const problems = checkIdProblems(checks);
  if (problems.length > 0) throw new Error(`the lab's checks are mis-declared: ${problems.join('; ')}`);
  const results: CheckResult[] = [];
  for (const check of checks) {
    if (options.signal?.aborted) break; // stopped from outside: the remaining checks do not run
    const result = await runCheck(check, options);
    results.push(result);
    print(formatResult(result));
    if (!result.ok && options.rerun) print(`    rerun: ${options.rerun(result.id)}`);
  }
  const passed = results.filter((r) => r.ok).length;
  return { results, passed, failed: results.length - passed };
}

/** The variables besides the options' own that change what a check does: fault points, the course's timings. */
const RUN_SETTINGS = ['LAB_FAULTS', 'USE_COURSE_TIMINGS'];

/** A value as a shell reads it back: bare when it is plain, else in single quotes. */
const shellWord = (value: string): string =>
  /^[A-Za-z0-9_./:,=@%+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * `LEASE_MS=1000 pnpm -w lab 15 --only <id>`: reruns one check with the settings this run had (every
 * option variable and fault point set in the environment; none is a secret: passwords live in
 * .env.tasks, never in an option).
 */
export function rerunCommand(lesson: string, id: string, env: NodeJS.ProcessEnv = process.env): string {
  const names = [...new Set([...declaredOptionNames(), ...RUN_SETTINGS])].sort();
  const settings = names.flatMap((name) => {
    const value = env[name];
    return value === undefined || value === '' ? [] : [`${name}=${shellWord(value)}`];
  });
  return [...settings, `pnpm -w lab ${lesson} --only ${id}`].join(' ');
}

/** The checks `--only` names (TASKS_LAB_ONLY: ids separated by commas), and the names that are no check's id. */
export function selectChecks(checks: Check[], only: string | undefined): { selected: Check[]; unknown: string[] } {
  if (only === undefined || only.trim() === '') return { selected: checks, unknown: [] };
  const wanted = only
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  const ids = new Set(checks.map((check) => check.id));
  return {
    selected: checks.filter((check) => wanted.includes(check.id)),
    unknown: wanted.filter((id) => !ids.has(id)),
  };
}

/** Where a run of some checks only (`--only`) writes its outcome, apart from the whole lesson's. */
export const ONLY_RESULT_FILE = '.lab-result.only.json';

export interface VerifyOptions {
  /** Two-digit lesson number, e.g. "03". */
  lesson: string;
  title: string;
  checks: Check[];
  /** Where the lesson doc lives, shown when a check fails. */
  doc: string;
  /**
   * Where the result file goes.
   * @defaultValue $TASKS_LAB_RESULT_DIR if set (a test that runs a real lab's verify points it at a
   * temporary folder, so it does not overwrite the result a CI run is about to count), else
   * process.cwd() (the lab folder under pnpm)
   */
  resultDir?: string;
}

/** The folder the result file goes to: see VerifyOptions.resultDir. */
export const resultDirOf = (options: Pick<VerifyOptions, 'resultDir'>) =>
  options.resultDir ?? process.env.TASKS_LAB_RESULT_DIR ?? process.cwd();

/** The course has sixteen lessons. */
const LAST_LESSON = 16;

/** "Next: pnpm -w lab 03 (labs/03-background-tasks)" when the next lab exists beside this one (-w: it works from the lab folder too). */
export function nextLessonHint(lesson: string, labDir: string): string {
  const next = String(Number(lesson) + 1).padStart(2, '0');
  const labsDir = dirname(labDir);
  const folder =
    existsSync(labsDir) && basename(labsDir) === 'labs'
      ? readdirSync(labsDir).find((name) => name.startsWith(`${next}-`))
      : undefined;
  if (folder) return `Next: pnpm -w lab ${next} (labs/${folder}, docs/${folder}.md)`;
  return Number(lesson) >= LAST_LESSON
    ? "That was the last lesson of the course (`pnpm -w lab` shows every lesson's status)."
    : 'That is the last lesson available so far (`pnpm -w lab` lists them).';
}

/**
 * The whole verify: header, one line per check, summary, result file, exit code.
 * Ctrl-C (or SIGTERM) stops the running check the way its timeout would, so the
 * processes it started are cleaned up; the remaining checks do not run and the verify
 * fails. A second Ctrl-C exits at once.
 */
export async function runVerify(options: VerifyOptions): Promise<CheckReport> {
  console.log(`Lesson ${options.lesson}: ${options.title}`);
  const interrupted = new AbortController();
  const press = stopPresses();
  const onSignal = (signal: NodeJS.Signals) => {
    const meaning = press();
    if (meaning === 'copy') return; // pnpm relays the terminal's Ctrl-C: one press, two signals
    if (meaning === 'again') process.exit(130);
    console.log(`${signal}: stopping the running check and cleaning up (again to exit at once)`);
    interrupted.abort(new Error(`verify got ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The handlers stay until the result file is written: a copy of the Ctrl-C that pnpm relays late
  // (a loaded machine) would otherwise meet the default handler and kill the verify between its
  // summary and its result file, and `pnpm lab` would report a verify that never reported.
  try {
    const only = process.env.TASKS_LAB_ONLY;
    const { selected, unknown } = selectChecks(options.checks, only);
    if (unknown.length > 0) {
      console.log(
        `No check of lesson ${options.lesson} has the id ${unknown.map((id) => `"${id}"`).join(', ')}. Its checks: ${options.checks.map((c) => c.id).join(', ')}`,
      );
      const report = { results: [], passed: 0, failed: 1 };
      console.log(formatSummary(report));
      writeResultFile(options, ONLY_RESULT_FILE, report);
      process.exitCode = 1;
      return report;
    }
    if (selected.length < options.checks.length)
      console.log(
        `Only ${selected.length} of ${options.checks.length} checks (--only): the lesson's status stays as its last whole run left it.`,
      );
    const rerun = (id: string) => rerunCommand(options.lesson, id);
    let report = await runChecks(selected, undefined, { signal: interrupted.signal, rerun });
    const notRun = selected.length - report.results.length;
    if (notRun > 0) report = { ...report, failed: report.failed + notRun };
    printSummary(options, report, notRun);
    const whole = selected.length === options.checks.length;
    writeResultFile(options, whole ? '.lab-result.json' : ONLY_RESULT_FILE, report);
    process.exitCode = report.failed > 0 ? 1 : 0;
    return report;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Writes a verify's outcome (`pnpm lab` reads it back) as `file` in the result folder. */
function writeResultFile(options: VerifyOptions, file: string, report: CheckReport): void {
  writeFileSync(
    join(resultDirOf(options), file),
    JSON.stringify({ lesson: options.lesson, finishedAt: new Date().toISOString(), ...report }, null, 2) + '\n',
  );
}

function printSummary(options: VerifyOptions, report: CheckReport, notRun: number): void {
  console.log('');
  if (notRun > 0) console.log(`Interrupted: ${notRun} check(s) did not run, and count as failed.`);
  if (report.failed > 0) {
    console.log(`Some checks failed. The lesson doc explains each check: ${options.doc}`);
  } else {
    console.log(`All checks passed. ${nextLessonHint(options.lesson, options.resultDir ?? process.cwd())}`);
  }
  console.log(formatSummary(report));
}
