// Every lab's verify script is a list of checks. Each check runs something real,
// then says what it observed and whether that matches the lesson. The runner
// prints one line per check and a closing "N passed, N failed" line, writes the
// outcome to .lab-result.json (so `pnpm lab` remembers it), and sets a non-zero
// exit code when any check failed.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface CheckOutcome {
  ok: boolean;
  /** What the check saw, in a few words a student can compare with the lesson doc. */
  observed: string;
}

export interface Check {
  /** The learning check, as the lesson doc words it. */
  name: string;
  run: () => CheckOutcome | Promise<CheckOutcome>;
  /** A check that takes longer than this fails instead of hanging the verify. @defaultValue 60000 */
  timeoutMs?: number;
}

export interface CheckResult extends CheckOutcome {
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

/** Runs one check with a time limit; a thrown error is a failed check, not a crash. */
export async function runCheck(check: Check): Promise<CheckResult> {
  const started = Date.now();
  const timeoutMs = check.timeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(() => resolve(fail(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const result = await Promise.race([Promise.resolve().then(check.run), timeout]);
    return { name: check.name, ...result, ms: Date.now() - started };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { name: check.name, ok: false, observed: `threw: ${message}`, ms: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

export function formatResult(result: CheckResult): string {
  const mark = result.ok ? '✓ pass' : '✗ FAIL';
  return `${mark}  ${result.name} — observed: ${result.observed}`;
}

export function formatSummary(report: Pick<CheckReport, 'passed' | 'failed'>): string {
  return `${report.passed} passed, ${report.failed} failed`;
}

/** Runs checks one after another (timings stay honest) and prints each line as it finishes. */
export async function runChecks(
  checks: Check[],
  print: (line: string) => void = (line) => console.log(line),
): Promise<CheckReport> {
  const results: CheckResult[] = [];
  for (const check of checks) {
    const result = await runCheck(check);
    results.push(result);
    print(formatResult(result));
  }
  const passed = results.filter((r) => r.ok).length;
  return { results, passed, failed: results.length - passed };
}

export interface VerifyOptions {
  /** Two-digit lesson number, e.g. "03". */
  lesson: string;
  title: string;
  checks: Check[];
  /** Where the lesson doc lives, shown when a check fails. */
  doc: string;
  /** Where the result file goes. @defaultValue process.cwd() (the lab folder under pnpm) */
  resultDir?: string;
}

/** "Next: pnpm lab 03 (labs/03-background-tasks)" when the next lab exists beside this one. */
export function nextLessonHint(lesson: string, labDir: string): string {
  const next = String(Number(lesson) + 1).padStart(2, '0');
  const labsDir = dirname(labDir);
  const folder = existsSync(labsDir) && basename(labsDir) === 'labs'
    ? readdirSync(labsDir).find((name) => name.startsWith(`${next}-`))
    : undefined;
  return folder
    ? `Next: pnpm lab ${next} (labs/${folder}, docs/${folder}.md)`
    : 'That is the last lesson available so far (`pnpm lab` lists them).';
}

/** The whole verify: header, one line per check, summary, result file, exit code. */
export async function runVerify(options: VerifyOptions): Promise<CheckReport> {
  console.log(`Lesson ${options.lesson}: ${options.title}`);
  const report = await runChecks(options.checks);
  console.log('');
  if (report.failed > 0) {
    console.log(`Some checks failed. The lesson doc explains each check: ${options.doc}`);
  } else {
    console.log(`All checks passed. ${nextLessonHint(options.lesson, options.resultDir ?? process.cwd())}`);
  }
  console.log(formatSummary(report));
  const file = join(options.resultDir ?? process.cwd(), '.lab-result.json');
  writeFileSync(
    file,
    JSON.stringify({ lesson: options.lesson, finishedAt: new Date().toISOString(), ...report }, null, 2) + '\n',
  );
  process.exitCode = report.failed > 0 ? 1 : 0;
  return report;
}
