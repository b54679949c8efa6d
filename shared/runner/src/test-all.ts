// `pnpm test`: everything CI checks, in one command.
//   1. turbo runs every package's typecheck, vitest tests and verify script
//   2. every exercise fails untouched and every solution passes
//   3. one closing line adds up tests, verify checks and exercise checks
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { formatSummary } from '@tasks-lab/lab-kit';
import { checkAllExercises } from './exercises.ts';
import { REPO_ROOT } from './labs.ts';

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

const started = Date.now();
const turbo = spawnSync(
  'pnpm',
  ['exec', 'turbo', 'run', 'typecheck', 'test', 'verify', '--concurrency=2', ...process.argv.slice(2)],
  { cwd: REPO_ROOT, stdio: 'inherit', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', TASKS_LAB_RUN_STARTED: String(started) } },
);
console.log('\nExercises: every untouched exercise must fail, every solution must pass');
const exercises = await checkAllExercises();
const { tests, checks, missing } = tallyReports(started);
const exercisePassed = exercises.filter((r) => r.ok).length;
const exerciseFailed = exercises.length - exercisePassed;

console.log('');
console.log(`vitest tests:     ${formatSummary(tests)}`);
console.log(`verify checks:    ${formatSummary(checks)}`);
console.log(`exercise checks:  ${formatSummary({ passed: exercisePassed, failed: exerciseFailed })}`);
for (const line of missing) console.log(`missing: ${line}`);
if (turbo.status !== 0) console.log(`turbo exited with ${turbo.status ?? turbo.signal}: a typecheck, test or verify failed (see above)`);
const failed = tests.failed + checks.failed + exerciseFailed + missing.length + (turbo.status === 0 ? 0 : 1);
console.log(formatSummary({ passed: tests.passed + checks.passed + exercisePassed, failed }));
process.exitCode = failed === 0 ? 0 : 1;
