// `pnpm test`: everything CI checks, in one command.
//   0. pnpm lint (Biome) over the whole workspace: a second, no services
//   1. turbo runs every package's typecheck, vitest tests and verify script
//   2. every lesson's course coverage holds (pnpm lab coverage)
//   3. every lesson's walk (pnpm lab NN --walk): the doc's own steps, typed as a student would,
//      after turbo (they must not share two cores with the timing-sensitive checks), in two lanes:
//      the lessons that use the docs' port 8000 one after another, the others beside them, then
//      the exercise checks (every untouched exercise fails, every solution passes) in that lane
//   4. the soak's short profile (pnpm soak -- --profile ci): the durable pipeline under faults,
//      after turbo, because it loads both cores and crashes its own private Redis and database
//   5. a closing section adds up tests, verify checks, exercise checks, walk steps and coverage,
//      says how long the run took, and ends with one `N passed, N failed` line
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { countLeakedSecrets, ensureInfra, findBinaries, nativeMysqlPid, nativeRedisPid } from '@tasks-lab/infra';
import { closingSection, failedChecks, failedTests, type LabResult, type Tally, type VitestReport } from './closing.ts';
import { checkAllExercises } from './exercises.ts';
import { allCoverage, formatCoverage } from './coverage.ts';
import { findLab, REPO_ROOT, readJsonFile } from './labs.ts';
import { LESSONS } from './lessons.ts';
import { findLeftovers } from './leftovers.ts';
import { parseLintSummary } from './lint.ts';
import { turboRunArgs } from './turbo-run.ts';
import { formatSlowest, readTaskTimes } from './turbo-summary.ts';
import { walkAllLessons } from './walk/all.ts';

function packageDirs(): string[] {
  const grouped = ['labs', 'shared'].flatMap((group) => {
    const dir = join(REPO_ROOT, group);
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'package.json')))
      .map((entry) => join(dir, entry.name));
  });
  // The benchmarks and the soak: one package of their own, above the labs.
  return [...grouped, join(REPO_ROOT, 'perf')];
}

/** Adds up vitest's JSON reports and the verify result files written by this run, naming each failure. */
function tallyReports(since: number): { tests: Tally; checks: Tally; missing: string[]; failures: string[] } {
  const tests: Tally = { passed: 0, failed: 0 };
  const checks: Tally = { passed: 0, failed: 0 };
  const missing: string[] = [];
  const failures: string[] = [];
  for (const dir of packageDirs()) {
    const manifest = readJsonFile<{ name: string; scripts?: Record<string, string> }>(join(dir, 'package.json'));
    if (!manifest) continue;
    if (manifest.scripts?.test) {
      const vitest = readJsonFile<VitestReport>(join(dir, '.vitest-result.json'));
      if (vitest) {
        tests.passed += vitest.numPassedTests;
        tests.failed += vitest.numFailedTests;
        failures.push(...failedTests(manifest.name, dir, vitest));
      } else missing.push(`${manifest.name}: no test report`);
    }
    if (manifest.scripts?.verify) {
      const result = readJsonFile<LabResult>(join(dir, '.lab-result.json'));
      if (result && Date.parse(result.finishedAt) >= since) {
        checks.passed += result.passed;
        checks.failed += result.failed;
        failures.push(...failedChecks(manifest.name, result));
      } else missing.push(`${manifest.name}: its verify did not report in this run`);
    }
  }
  return { tests, checks, missing, failures };
}

/** Runs a command, echoing its output and keeping a copy (to look for leaked secrets). */
function runEchoed(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      process.stderr.write(chunk);
    });
    child.on('close', (code) => resolve({ status: code ?? 1, output }));
  });
}

/**
 * `pnpm soak -- --profile ci` with a new seed each run (a soak explores; a failing seed is printed
 * with the command that repeats it). Its invariant lines are the tally; no line at all is a failure.
 * Machines without the server binaries (Docker only) cannot run it: said, and not counted.
 */
async function runSoakProfile(): Promise<{ tally: Tally; output: string }> {
  const binaries = findBinaries();
  if (!binaries.redisServer || !binaries.mysqlServer) {
    console.log(
      'soak skipped: it starts a private Redis and database from their binaries, and this machine has none (Docker mode)',
    );
    return { tally: { passed: 0, failed: 0 }, output: '' };
  }
  const run = await runEchoed('pnpm', ['--silent', 'soak', '--profile', 'ci'], process.env);
  const passed = run.output.split('\n').filter((line) => line.startsWith('✓ pass')).length;
  const failed = run.output.split('\n').filter((line) => line.startsWith('✗ FAIL')).length;
  return { tally: { passed, failed: failed + (run.status !== 0 && failed === 0 ? 1 : 0) }, output: run.output };
}

const started = Date.now();
const phases: { name: string; ms: number }[] = [];
/** Runs one part of `pnpm test`, timing it for the closing section's time line. */
async function phase<T>(name: string, work: () => Promise<T>): Promise<T> {
  const start = Date.now();
  try {
    return await work();
  } finally {
    phases.push({ name, ms: Date.now() - start });
  }
}
console.log('Lint: Biome over every TypeScript file (pnpm lint)');
const lint = await phase('lint', async () => {
  const run = await runEchoed('pnpm', ['--silent', 'lint', '--reporter=summary'], process.env);
  return parseLintSummary(run.output, run.status);
});
// Lessons 08+ need Redis and the database. Start them once, before turbo runs labs in parallel.
const needsServices = LESSONS.some((lesson) => (findLab(lesson)?.needs.length ?? 0) > 0);
if (needsServices) await ensureInfra({ log: (line) => console.log(`[infra] ${line}`) });
const turbo = await phase('turbo', () =>
  runEchoed('pnpm', turboRunArgs(process.argv.slice(2)), {
    ...process.env,
    TURBO_TELEMETRY_DISABLED: '1',
    TASKS_LAB_RUN_STARTED: String(started),
  }),
);
console.log(formatSlowest(readTaskTimes(join(REPO_ROOT, '.turbo', 'runs'), started)));
// Read turbo's reports now: a walk's step may run one test file (`npx vitest run ...`) or an earlier
// lab's verify (lesson 07's `pnpm earlier`), and would overwrite them with a part of the run.
const { tests, checks, missing, failures } = tallyReports(started);
console.log('\nCourse coverage: every checklist item of every lesson is graded or doc-only with a reason');
const coverage = await allCoverage(LESSONS.map((lesson) => findLab(lesson)).filter((lab) => lab !== undefined));
for (const lesson of coverage) for (const line of formatCoverage(lesson)) console.log(line);
const coverageFailed = coverage.filter((c) => c.problems.length > 0).length;
console.log(
  "\nLesson walks: every lesson doc's steps, run as a student types them (two lanes: the lessons that use port 8000 take turns)",
);
// The exercise checks (vitest runs, no port, nothing timed) follow the walks of the lane without ports.
let exercises: Awaited<ReturnType<typeof checkAllExercises>> = [];
const walks = await phase('walks and exercises', () =>
  walkAllLessons(
    (text) => console.log(text),
    async () => {
      const lines: string[] = [];
      exercises = await checkAllExercises((line) => lines.push(line));
      console.log(`\nExercises: every untouched exercise must fail, every solution must pass\n${lines.join('\n')}`);
    },
  ),
);
console.log(`walk times: ${walks.times.join(', ')}`);
console.log('\nSoak, short profile: the durable pipeline under many faults at once, judged by its invariants');
const soak = await phase('soak', runSoakProfile);
const exercisePassed = exercises.filter((r) => r.ok).length;

// The generated passwords must never reach any output: look for each one in everything printed.
const leakedSecrets =
  countLeakedSecrets(turbo.output) + countLeakedSecrets(walks.output) + countLeakedSecrets(soak.output);
// Every worker, child and thread a lab started must be gone; the labs' own services stay up.
const services = new Set([nativeRedisPid(), nativeMysqlPid()].filter((pid): pid is number => pid !== undefined));
const leftovers = findLeftovers(REPO_ROOT, services);

const { lines, failed } = closingSection({
  tests,
  checks,
  exercises: { passed: exercisePassed, failed: exercises.length - exercisePassed },
  coverage: { passed: coverage.length - coverageFailed, failed: coverageFailed },
  walks: walks.tally,
  soak: soak.tally,
  leakedSecrets,
  lint: { errors: lint.errors, warnings: lint.warnings },
  leftovers,
  missing,
  failures: [...failures, ...walks.failures],
  turboStatus: turbo.status,
  elapsedMs: Date.now() - started,
  phases,
});
console.log('');
for (const line of lines) console.log(line);
process.exitCode = failed === 0 ? 0 : 1;
