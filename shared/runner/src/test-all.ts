// `pnpm test`: everything CI checks, in one command.
//   1. turbo runs every package's typecheck, vitest tests and verify script
//   2. every exercise fails untouched and every solution passes
//   3. one closing line adds up tests, verify checks and exercise checks
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { countLeakedSecrets, ensureInfra, nativeMysqlPid, nativeRedisPid } from '@tasks-lab/infra';
import { formatSummary } from '@tasks-lab/lab-kit';
import { checkAllExercises } from './exercises.ts';
import { findLab, REPO_ROOT } from './labs.ts';
import { LESSONS } from './lessons.ts';
import { findLeftovers } from './leftovers.ts';

interface Tally {
  passed: number;
  failed: number;
}

function packageDirs(): string[] {
  return ['labs', 'shared'].flatMap((group) => {
    const dir = join(REPO_ROOT, group);
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'package.json')))
      .map((entry) => join(dir, entry.name));
  });
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Adds up vitest's JSON reports and the verify result files written by this run. */
function tallyReports(since: number): { tests: Tally; checks: Tally; missing: string[] } {
  const tests: Tally = { passed: 0, failed: 0 };
  const checks: Tally = { passed: 0, failed: 0 };
  const missing: string[] = [];
  for (const dir of packageDirs()) {
    const manifest = readJson<{ name: string; scripts?: Record<string, string> }>(join(dir, 'package.json'));
    if (!manifest) continue;
    if (manifest.scripts?.test) {
      const vitest = readJson<{ numPassedTests: number; numFailedTests: number }>(join(dir, '.vitest-result.json'));
      if (vitest) {
        tests.passed += vitest.numPassedTests;
        tests.failed += vitest.numFailedTests;
      } else missing.push(`${manifest.name}: no test report`);
    }
    if (manifest.scripts?.verify) {
      const result = readJson<{ passed: number; failed: number; finishedAt: string }>(join(dir, '.lab-result.json'));
      if (result && Date.parse(result.finishedAt) >= since) {
        checks.passed += result.passed;
        checks.failed += result.failed;
      } else missing.push(`${manifest.name}: its verify did not report in this run`);
    }
  }
  return { tests, checks, missing };
}

/** Runs a command, echoing its output and keeping a copy (to look for leaked secrets). */
function runEchoed(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number; output: string }> {
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

const started = Date.now();
// Lessons 08+ need Redis and the database. Start them once, before turbo runs labs in parallel.
const needsServices = LESSONS.some((lesson) => (findLab(lesson)?.needs.length ?? 0) > 0);
if (needsServices) await ensureInfra({ log: (line) => console.log(`[infra] ${line}`) });
// --continue: one failing lab must not hide how the others did. --no-daemon: a turbo daemon
// outliving the run would look like a process a lab forgot to stop.
const turbo = await runEchoed(
  'pnpm',
  ['exec', 'turbo', 'run', 'typecheck', 'test', 'verify', '--concurrency=2', '--continue', '--no-daemon', ...process.argv.slice(2)],
  { ...process.env, TURBO_TELEMETRY_DISABLED: '1', TASKS_LAB_RUN_STARTED: String(started) },
);
console.log('\nExercises: every untouched exercise must fail, every solution must pass');
const exercises = await checkAllExercises();
const { tests, checks, missing } = tallyReports(started);
const exercisePassed = exercises.filter((r) => r.ok).length;
const exerciseFailed = exercises.length - exercisePassed;

// The generated passwords must never reach any output: look for each one in everything printed.
const leaks = countLeakedSecrets(turbo.output);
// Every worker, child and thread a lab started must be gone; the labs' own services stay up.
const services = new Set([nativeRedisPid(), nativeMysqlPid()].filter((pid): pid is number => pid !== undefined));
const leftovers = findLeftovers(REPO_ROOT, services);

console.log('');
console.log(`vitest tests:     ${formatSummary(tests)}`);
console.log(`verify checks:    ${formatSummary(checks)}`);
console.log(`exercise checks:  ${formatSummary({ passed: exercisePassed, failed: exerciseFailed })}`);
console.log(`secrets:          ${leaks === 0 ? 'no generated password appears in the output' : `${leaks} generated password(s) appear in the output`}`);
console.log(`processes:        ${leftovers.length === 0 ? 'nothing the labs started is still running' : `${leftovers.length} left running`}`);
for (const p of leftovers) console.log(`left running: pid ${p.pid} ${p.command}`);
for (const line of missing) console.log(`missing: ${line}`);
if (turbo.status !== 0) console.log(`turbo exited with ${turbo.status}: a typecheck, test or verify failed (see above)`);
const failed =
  tests.failed + checks.failed + exerciseFailed + missing.length + leaks + leftovers.length + (turbo.status === 0 ? 0 : 1);
console.log(formatSummary({ passed: tests.passed + checks.passed + exercisePassed, failed }));
process.exitCode = failed === 0 ? 0 : 1;
