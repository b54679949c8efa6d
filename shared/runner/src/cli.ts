// `pnpm lab`: the student's entry point to the course.
//   pnpm lab                    list the 16 lessons with their status
//   pnpm lab 03                 run lesson 03's verify (same as pnpm --filter @tasks-lab/03-... verify)
//   pnpm lab 03 --only ID       run one check (each failed check prints the command, with its settings)
//   pnpm lab 03 --repeat 10     run it 10 times and report checks whose outcome varies
//   pnpm lab 03 --hint          a first nudge for the exercise; --hint 2 the closer hint
//   pnpm lab 03 --exercise      grade your exercise/ file
//   pnpm lab 03 --solution      where the reference answer is, graded the same way (once the exercise passed, or --force)
//   pnpm lab diff 11 12 [--full]  what lesson 12 changed relative to lesson 11
//   pnpm lab check-exercises    every untouched exercise fails, every solution passes (--repeat N: N rounds)
//   pnpm lab coverage [NN] [--write]  which course checklist items the checks and tests grade
//   pnpm lab NN --walk          run the lesson doc's own steps, as a student types them
//   pnpm lab NN --reset [--yes] return the lab to its fresh state
//   pnpm lab sql NN [-e "..."]  the lab's database in a client (credentials from a 0600 file)
//   pnpm lab products NN COUNT  products 1 to COUNT exist in the lab's database
//   pnpm lab schema NN [--write] the schema lab NN runs on (its migrations applied), or rewrite its schema.txt
//   pnpm lab report [--json|--csv]  every check's, exercise's and walk's last outcome, for an instructor
//   pnpm lab watch [NN] [--poll]  re-grade lesson NN's exercise on every save (default: the first unsolved)
//   pnpm lab next               the first lesson not passed yet: what to read, what to run
//   pnpm lab doctor             this machine's versions, services, ports and file events, in one pasteable block
import { relative } from 'node:path';
import { InfraError, countLeakedSecrets, ensureInfra } from '@tasks-lab/infra';
import { formatSummary, stopPresses } from '@tasks-lab/lab-kit';
import { renderDiff } from './diff.ts';
import { formatCsv, formatTable, REPORT_FIELDS, reportRows, writeRepeatRecord } from './report.ts';
import { examineMachine, formatDoctor } from './doctor.ts';
import {
  formatNext,
  formatProgress,
  readExerciseResult,
  readProgress,
  solutionNudge,
  solutionNudgeOn,
  writeExerciseResult,
} from './progress.ts';
import { findLab, REPO_ROOT, statusOf, type Lab } from './labs.ts';
import { findLesson, LESSONS } from './lessons.ts';
import { formatRepeat, rerunCommands, summariseRuns, type RepeatSummary } from './repeat.ts';
import { runExerciseTest, runVerifyOnce } from './run.ts';
import { checkAllExercises, labsWithExercises } from './exercises.ts';
import { allCoverage, formatCoverage } from './coverage.ts';
import { addProducts, LabDatabaseError, openSqlClient } from './lab-database.ts';
import { resetLab } from './reset.ts';
import { NoSchemaError, schemaCommand } from './schema.ts';
import { walkLesson } from './walk/index.ts';
import { firstUnsolvedExercise, watchExercise } from './watch.ts';

const USAGE = `Usage:
  pnpm lab                       list the lessons and their status, then your progress
  pnpm lab next                  the first lesson not passed yet: what to read and what to run
  pnpm lab watch [NN] [--poll]   grade lesson NN's exercise (default: the first unsolved) on every save;
                                 polls where file events do not arrive (--poll: always)
  pnpm lab report [--json|--csv] per lesson, every check's, exercise's and walk's last outcome, its
                                 time, and how often a check flipped over --repeat runs
  pnpm lab NN                    run lesson NN's checks (its verify script)
  pnpm lab NN --only ID[,ID]     run only the checks with these ids (a failed check prints this command)
  pnpm lab NN --repeat N         run them N times; report checks whose outcome varies
                                 (--only ID --repeat N: that check alone, N times)
  pnpm lab NN --hint             a first nudge for the try-it-yourself exercise (--hint 2: the closer hint)
  pnpm lab NN --exercise         grade your answer in labs/NN-*/exercise/
  pnpm lab NN --solution         show the reference answer's path and grade it, once your exercise
                                 passes (--force: now)
  pnpm lab NN --walk             run lesson NN's doc step by step, as a student types it
                                 (--keep-going: on past a failed step)
  pnpm lab NN --reset [--yes]    return lesson NN's lab to its fresh state (database, Redis keys, files)
  pnpm lab sql NN                open lesson NN's database in the MySQL client
  pnpm lab sql NN -e "SELECT 1"  run one statement there and print the result as a table
  pnpm lab products NN COUNT     make products 1 to COUNT exist in lesson NN's database
  pnpm lab schema NN [--write]   print the schema lesson NN's lab runs on (every migration up to it
                                 applied to an empty database), or rewrite labs/NN-*/migrations/schema.txt
  pnpm lab diff A B [--full]     show what lesson B changed relative to lesson A
  pnpm lab check-exercises       check every exercise fails untouched and every solution passes
  pnpm lab check-exercises [NN] --repeat N   N rounds (of lesson NN's only): report any grade that varies
  pnpm lab coverage [NN]         which course checklist items each lesson's checks and tests grade
  pnpm lab coverage --write      also rewrite each lesson doc's coverage table from the data
  pnpm lab doctor                this machine's Node, pnpm, services, ports and file events, in one
                                 block to paste into a question (it holds no password)`;

class UsageError extends Error {}

// `pnpm lab diff 11 12 | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

function listLessons(): number {
  console.log('tasks-lab: sixteen lessons on asynchronous task processing\n');
  for (const lesson of LESSONS) {
    const { status, result } = statusOf(findLab(lesson));
    const detail = result
      ? ` (${result.passed}/${result.passed + result.failed} checks, ${result.finishedAt.slice(0, 16).replace('T', ' ')} UTC)`
      : '';
    const lab = findLab(lesson);
    const solved = lab?.exercise ? `, exercise ${readExerciseResult(lab)?.passed ? 'solved' : 'not solved yet'}` : '';
    console.log(`  ${lesson.number}  ${lesson.title.padEnd(64)} ${status}${detail}${solved}`);
  }
  console.log(`\n${formatProgress(readProgress())}`);
  console.log('\n`pnpm lab next` says what to do next. `pnpm lab help` shows everything else.');
  return 0;
}

function requireLab(arg: string | undefined): Lab {
  const lesson = arg ? findLesson(arg) : undefined;
  if (!lesson) throw new UsageError(`"${arg ?? ''}" is not a lesson number; use 01 to 16.`);
  const lab = findLab(lesson);
  if (!lab) throw new UsageError(`Lesson ${lesson.number} (${lesson.title}) is not available yet.`);
  return lab;
}

/** Labs from lesson 08 on need Redis and the database: bring them up first (idempotent). */
async function ensureServices(lab: Lab): Promise<boolean> {
  if (lab.needs.length === 0) return true;
  try {
    await ensureInfra({ services: lab.needs, log: (line) => console.log(`[infra] ${line}`) });
    return true;
  } catch (err) {
    if (!(err instanceof InfraError)) throw err;
    console.log(`Lesson ${lab.lesson.number} needs ${lab.needs.join(' and ')}, which cannot start:`);
    for (const p of err.problems) console.log(`  ${p.service}: ${p.message}`);
    console.log('0 passed, 1 failed');
    return false;
  }
}

async function verify(lab: Lab, only?: string): Promise<number> {
  if (!(await ensureServices(lab))) return 1;
  console.log(`Running ${relative(REPO_ROOT, lab.dir)}/scripts/verify.ts${only ? ` --only ${only}` : ''}\n`);
  const { exitCode, result, output } = await runVerifyOnce(lab, { only });
  if (!result) console.log(`\nThe verify script stopped before reporting (exit code ${exitCode}).\n0 passed, 1 failed`);
  // Lessons 08+ handle generated passwords: none may ever appear in what a student sees.
  const leaks = countLeakedSecrets(output);
  if (leaks > 0) console.log(`✗ FAIL  ${leaks} generated password(s) from .env.tasks appeared in the output above`);
  return result && result.failed === 0 && exitCode === 0 && leaks === 0 ? 0 : 1;
}

async function repeat(lab: Lab, times: number, only?: string): Promise<number> {
  if (!(await ensureServices(lab))) return 1;
  const which = only ? `check(s) ${only}` : 'checks';
  console.log(`Running lesson ${lab.lesson.number}'s ${which} ${times} times to find any whose outcome varies.`);
  const reports = [];
  const reruns = new Map<string, string>();
  let leaks = 0;
  for (let run = 1; run <= times; run++) {
    const { exitCode, result, output } = await runVerifyOnce(lab, { quiet: true, only });
    leaks += countLeakedSecrets(output);
    for (const [id, command] of rerunCommands(output)) reruns.set(id, command);
    const line = result ? formatSummary(result) : `crashed before reporting (exit code ${exitCode})`;
    console.log(`  run ${run}/${times}: ${line}`);
    reports.push(result ?? { results: [], passed: 0, failed: 1 });
  }
  const summary = summariseRuns(reports);
  writeRepeatRecord(lab, summary);
  return closeRepeat(summary, reruns, { crashed: reports.filter((r) => r.results.length === 0).length, leaks });
}

/**
 * A --repeat's closing (of the checks or of the exercises): a line per check, the counts, and
 * `N passed, N failed`, where a varying or always failing check fails, and so do crashed runs and
 * leaked passwords. The exit code.
 */
function closeRepeat(
  summary: RepeatSummary,
  reruns: ReadonlyMap<string, string>,
  problems: { crashed?: number; leaks?: number } = {},
): number {
  const { crashed = 0, leaks = 0 } = problems;
  console.log('');
  for (const line of formatRepeat(summary, reruns)) console.log(line);
  console.log(
    `\n${summary.stablePassing.length} stable, ${summary.varying.length} varying, ${summary.stableFailing.length} always failing` +
      (crashed ? `, ${crashed} runs crashed` : ''),
  );
  if (leaks > 0) console.log(`✗ FAIL  a generated password from .env.tasks appeared ${leaks} time(s) in the output`);
  const bad = summary.varying.length + summary.stableFailing.length + crashed + leaks;
  console.log(formatSummary({ passed: summary.stablePassing.length, failed: bad }));
  return bad === 0 ? 0 : 1;
}

/** Ctrl-C stops the walk and the processes it started; a second press exits at once. */
async function walk(lab: Lab, keepGoing: boolean): Promise<number> {
  const interrupted = new AbortController();
  const press = stopPresses();
  const onSignal = () => {
    const meaning = press();
    if (meaning === 'again') process.exit(130);
    if (meaning === 'first') interrupted.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const report = await walkLesson(lab, { keepGoing, signal: interrupted.signal });
    return report.failed === 0 && !interrupted.signal.aborted ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function exercise(
  lab: Lab,
  flag: '--hint' | '--exercise' | '--solution',
  options: { force?: boolean; stage?: number } = {},
): Promise<number> {
  const force = options.force === true;
  const info = lab.exercise;
  if (!info) throw new UsageError(`Lesson ${lab.lesson.number} has no try-it-yourself exercise.`);
  if (flag === '--solution' && !force && solutionNudgeOn() && !readExerciseResult(lab)?.passed) {
    for (const line of solutionNudge(lab.lesson.number)) console.log(line);
    return 0;
  }
  // Relative to where the student typed the command: `pnpm -w` runs us at the root, and pnpm
  // says in INIT_CWD which folder the command was typed in (the lab folder, in the docs).
  const where = (file: string) => relative(process.env.INIT_CWD ?? process.cwd(), `${lab.dir}/${file}`);
  if (flag === '--hint') {
    // Two stages: a first nudge (a question that points at the idea), then the closer hint (`--hint 2`).
    const n = lab.lesson.number;
    const first = info.nudge !== undefined && options.stage !== 2;
    const text = first
      ? `A first nudge: ${info.nudge}\nA closer hint: pnpm -w lab ${n} --hint 2`
      : `Hint: ${info.hint}`;
    console.log(`Exercise: ${where(info.file)}\n${text}\nGrade it with: pnpm -w lab ${n} --exercise`);
    return 0;
  }
  if (flag === '--solution')
    console.log(`Reference answer: ${where(info.solution)}\nGrading it with ${where(info.test)}:\n`);
  else console.log(`Grading ${where(info.file)} with ${where(info.test)}:\n`);
  const { exitCode } = await runExerciseTest(lab, flag === '--solution' ? 'solution' : 'student');
  if (flag === '--exercise') {
    writeExerciseResult(lab, exitCode === 0);
    console.log(
      exitCode === 0 ? '✓ Your exercise passes.' : `✗ Not yet. A hint: pnpm -w lab ${lab.lesson.number} --hint`,
    );
  }
  return exitCode === 0 ? 0 : 1;
}

/**
 * `pnpm lab check-exercises [NN] [--repeat N]`: every exercise (or lesson NN's) untouched fails and
 * its solution passes; with --repeat, N rounds and the checks whose outcome varied between them
 * (an exercise whose grading involves a race must give the same grade every time).
 */
async function checkExercises(args: string[]): Promise<number> {
  const at = args.indexOf('--repeat');
  const [number] = args.filter((arg, i) => !arg.startsWith('--') && (at < 0 || i !== at + 1));
  const labs = number ? [requireLab(number)] : labsWithExercises();
  if (number && !labs[0]?.exercise) throw new UsageError(`Lesson ${number} has no exercise.`);
  if (at < 0) {
    const results = await checkAllExercises(undefined, labs);
    const passed = results.filter((r) => r.ok).length;
    console.log(formatSummary({ passed, failed: results.length - passed }));
    return passed === results.length ? 0 : 1;
  }
  const times = Number(args[at + 1]);
  if (!Number.isInteger(times) || times < 2 || times > 100)
    throw new UsageError('--repeat takes a whole number from 2 to 100.');
  console.log(`Checking ${labs.length} exercise(s) ${times} times to find any whose grade varies.`);
  const reports = [];
  for (let run = 1; run <= times; run++) {
    const results = await checkAllExercises(() => {}, labs);
    const passed = results.filter((r) => r.ok).length;
    reports.push({ results, passed, failed: results.length - passed });
    console.log(`  run ${run}/${times}: ${formatSummary({ passed, failed: results.length - passed })}`);
  }
  return closeRepeat(summariseRuns(reports), new Map());
}

/** `--only ID[,ID]` anywhere after the lesson number, or undefined. */
function onlyOption(args: string[]): string | undefined {
  const at = args.indexOf('--only');
  if (at < 0) return undefined;
  const value = args[at + 1];
  if (!value || value.startsWith('--'))
    throw new UsageError('--only takes a check id (or several, separated by commas).');
  return value;
}

async function main(argv: string[]): Promise<number> {
  const args = argv.filter((a) => a !== '--');
  const [first, ...rest] = args;
  if (!first || first === 'list') return listLessons();
  if (first === 'help' || first === '--help' || first === '-h') {
    console.log(USAGE);
    return 0;
  }
  if (first === 'watch') {
    const [number] = rest.filter((arg) => !arg.startsWith('--'));
    const lab = number ? requireLab(number) : firstUnsolvedExercise();
    if (!lab) {
      console.log('Every exercise is solved. `pnpm lab watch NN` watches lesson NN again.');
      return 0;
    }
    if (!lab.exercise) throw new UsageError(`Lesson ${lab.lesson.number} has no exercise to watch.`);
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      await watchExercise(lab, { signal: stop.signal, poll: rest.includes('--poll') ? true : undefined });
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    return 0;
  }
  if (first === 'report') {
    const rows = reportRows();
    if (rest.includes('--json')) console.log(JSON.stringify({ fields: REPORT_FIELDS, rows }, null, 2));
    else if (rest.includes('--csv')) console.log(formatCsv(rows));
    else for (const line of formatTable(rows)) console.log(line);
    return 0;
  }
  if (first === 'next') {
    for (const line of formatNext(readProgress())) console.log(line);
    return 0;
  }
  if (first === 'doctor') {
    const lines = await examineMachine();
    console.log(formatDoctor(lines));
    return lines.every((line) => line.ok) ? 0 : 1;
  }
  if (first === 'check-exercises') return checkExercises(rest);
  if (first === 'coverage') {
    const only = rest.find((x) => !x.startsWith('--'));
    const labs = only
      ? [requireLab(only)]
      : LESSONS.map((lesson) => findLab(lesson)).filter((lab): lab is Lab => lab !== undefined);
    const report = await allCoverage(labs, { write: rest.includes('--write') });
    for (const lesson of report) for (const line of formatCoverage(lesson)) console.log(line);
    const failed = report.filter((c) => c.problems.length > 0).length;
    console.log(formatSummary({ passed: report.length - failed, failed }));
    return failed === 0 ? 0 : 1;
  }
  if (first === 'sql') {
    const [number, ...clientArgs] = rest;
    return openSqlClient(requireLab(number), clientArgs);
  }
  if (first === 'products') {
    const [number, countArg] = rest;
    const count = Number(countArg);
    if (!Number.isInteger(count) || count < 1 || count > 10_000)
      throw new UsageError('products takes a lesson and a count from 1 to 10000, e.g. `pnpm lab products 13 40`.');
    console.log(await addProducts(requireLab(number), count));
    return 0;
  }
  if (first === 'schema') {
    const [number] = rest.filter((x) => !x.startsWith('--'));
    return schemaCommand(requireLab(number), { write: rest.includes('--write'), print: (text) => console.log(text) });
  }
  if (first === 'diff') {
    const [a, b] = rest.filter((x) => !x.startsWith('--'));
    if (!a || !b) throw new UsageError('diff takes two lesson numbers, e.g. `pnpm lab diff 11 12`.');
    console.log(
      renderDiff(requireLab(a), requireLab(b), { full: rest.includes('--full'), color: process.stdout.isTTY }),
    );
    return 0;
  }
  const lab = requireLab(first);
  if (rest.length === 0) return verify(lab);
  const only = onlyOption(rest);
  const [flag, value] = rest;
  if (flag === '--repeat' || (flag === '--only' && rest[2] === '--repeat')) {
    const times = Number(flag === '--repeat' ? value : rest[3]);
    if (!Number.isInteger(times) || times < 2 || times > 100)
      throw new UsageError('--repeat takes a whole number from 2 to 100.');
    return repeat(lab, times, only);
  }
  if (flag === '--only') return verify(lab, only);
  if (flag === '--hint' || flag === '--exercise' || flag === '--solution')
    return exercise(lab, flag, { force: rest.includes('--force'), stage: flag === '--hint' && value === '2' ? 2 : 1 });
  if (flag === '--reset') return resetLab(lab, { yes: rest.includes('--yes') });
  if (flag === '--walk') return walk(lab, rest.includes('--keep-going'));
  throw new UsageError(`Unknown option "${flag}".`);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (err instanceof LabDatabaseError || err instanceof NoSchemaError || err instanceof InfraError) {
      console.error(err.message);
      process.exitCode = 1;
    } else {
      console.error(err);
      process.exitCode = 1;
    }
  },
);
