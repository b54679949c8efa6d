// Running a lab's scripts as real child processes, with the lab folder as cwd.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ONLY_RESULT_FILE } from '@tasks-lab/lab-kit';
import { labRecordPath, readResult, resultPath, type Lab, type LabResult } from './labs.ts';

const tsxLoader = import.meta.resolve('tsx');

export interface RunOutcome {
  exitCode: number;
  output: string;
}

/** Runs `node <argv>` in the lab folder, echoing its output unless quiet. */
export function runNode(
  lab: Lab,
  argv: string[],
  options: { quiet?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<RunOutcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, {
      cwd: lab.dir,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (!options.quiet) stream.write(chunk);
    };
    child.stdout.on('data', collect(process.stdout));
    child.stderr.on('data', collect(process.stderr));
    // Like a shell with a foreground job: a Ctrl-C reaches the child too (same process group), and
    // the child decides what it means (verify stops its check and cleans up). This process waits
    // for it instead of dying first and closing the pipe the child is still writing its report to.
    // SIGINT is not passed on: a Ctrl-C goes to the whole group, so the child has it already, and
    // pnpm relays its own copy to this process a moment later (on a loaded machine, over a second
    // later). Passed on, that copy would reach the child as a second press, "exit at once", and
    // cut off its report. A SIGTERM sent to this process alone (kill <pid>) is passed on; the
    // child's handlers count a copy that arrives with a group's own as the same request.
    const waitForChild = () => {};
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', waitForChild);
    process.on('SIGTERM', forward);
    child.on('close', (code, signal) => {
      process.off('SIGINT', waitForChild);
      process.off('SIGTERM', forward);
      resolve({ exitCode: code ?? (signal ? 128 : 1), output });
    });
  });
}

/**
 * Runs the lab's verify script once. The result comes from the file the script
 * writes; a verify that crashed before writing it has no result and counts as failed.
 */
export async function runVerifyOnce(
  lab: Lab,
  options: { quiet?: boolean; only?: string } = {},
): Promise<RunOutcome & { result?: LabResult }> {
  // `--only`: some checks, whose outcome goes to a file of its own; the lesson's own result stays.
  const file = options.only ? labRecordPath(lab, ONLY_RESULT_FILE) : resultPath(lab);
  rmSync(file, { force: true });
  const env = options.only ? { TASKS_LAB_ONLY: options.only } : undefined;
  const outcome = await runNode(lab, ['--import', tsxLoader, 'scripts/verify.ts'], { quiet: options.quiet, env });
  return { ...outcome, result: readResult(lab, file) };
}

/** Runs the exercise test against the student's file or the reference solution. */
export function runExerciseTest(
  lab: Lab,
  target: 'student' | 'solution',
  options: { quiet?: boolean } = {},
): Promise<RunOutcome> {
  const vitest = join(lab.dir, 'node_modules', 'vitest', 'vitest.mjs');
  const test = lab.exercise?.test ?? 'test/exercise.test.ts';
  return runNode(lab, [vitest, 'run', test, '--reporter=default'], {
    ...options,
    env: { LAB_EXERCISE: target, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' },
  });
}
