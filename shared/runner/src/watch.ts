// `pnpm lab watch [NN]` (rustlings' watch): grades lesson NN's exercise, then again each time the
// student saves the file, clearing the screen between grades on a terminal. chokidar watches the
// file; where file events do not arrive (a WSL /mnt drive, some network folders) it polls
// instead, and the screen says so. NN defaults to the first lesson whose exercise is not solved.
import { join, relative } from 'node:path';
import { watch as watchFiles } from 'chokidar';
import { fileEventsLine } from './doctor.ts';
import { findLab, REPO_ROOT, type Lab } from './labs.ts';
import { findLesson } from './lessons.ts';
import { readProgress, writeExerciseResult } from './progress.ts';
import { runExerciseTest } from './run.ts';

/** How often the fallback polls the file. @defaultValue 500 */
export const POLL_INTERVAL_MS = 500;

/** The lab `pnpm lab watch` takes without a number: the first lesson whose exercise is not solved. */
export function firstUnsolvedExercise(): Lab | undefined {
  const next = readProgress().find((lesson) => lesson.exercisePassed === false);
  const lesson = next && findLesson(next.number);
  return lesson ? findLab(lesson) : undefined;
}

export interface WatchOptions {
  /** Stops the watch (Ctrl-C). */
  signal: AbortSignal;
  print?: (line: string) => void;
  /** Poll instead of waiting for file events (--poll). @defaultValue TASKS_LAB_WATCH_POLL=1, or when a probe saw no event */
  poll?: boolean;
}

/** Grades the exercise once, then after every save until the signal aborts. Resolves when stopped. */
export async function watchExercise(lab: Lab, options: WatchOptions): Promise<void> {
  const print = options.print ?? ((line: string) => console.log(line));
  const info = lab.exercise;
  if (!info) throw new Error(`Lesson ${lab.lesson.number} has no exercise.`);
  const file = join(lab.dir, info.file);
  const shown = relative(process.env.INIT_CWD ?? REPO_ROOT, file);
  const forced = options.poll === true || process.env.TASKS_LAB_WATCH_POLL === '1';
  const poll = forced || !(await fileEventsLine(lab.dir, 2000)).ok;
  const how = !poll
    ? 'on each save'
    : forced
      ? `polling it every ${POLL_INTERVAL_MS} ms, as asked`
      : `no file events arrive here: polling it every ${POLL_INTERVAL_MS} ms`;
  const grade = async () => {
    if (process.stdout.isTTY) process.stdout.write('\x1b[2J\x1b[H');
    print(`Watching ${shown} (${how}); Ctrl-C stops.\n`);
    const { exitCode } = await runExerciseTest(lab, 'student');
    writeExerciseResult(lab, exitCode === 0);
    print(
      exitCode === 0
        ? `\n✓ Your exercise passes. pnpm -w lab ${lab.lesson.number} --solution shows the reference answer; pnpm -w lab next says what comes next.`
        : `\n✗ Not yet. Save the file to grade it again (a hint: pnpm -w lab ${lab.lesson.number} --hint).`,
    );
  };
  // One grade at a time: a save during a grade asks for one more when it ends, not a second at once.
  let running: Promise<void> | undefined;
  let again = false;
  const regrade = () => {
    if (running) {
      again = true;
      return;
    }
    running = grade().finally(() => {
      running = undefined;
      if (again && !options.signal.aborted) {
        again = false;
        regrade();
      }
    });
  };
  const watcher = watchFiles(file, {
    usePolling: poll,
    interval: POLL_INTERVAL_MS,
    ignoreInitial: true,
    awaitWriteFinish: { stabilityThreshold: 100, pollInterval: 50 },
  });
  watcher.on('change', regrade);
  watcher.on('add', regrade);
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  regrade();
  await new Promise<void>((resolve) => {
    if (options.signal.aborted) resolve();
    else options.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await watcher.close();
  await running;
}
