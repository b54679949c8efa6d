// `pnpm lab check-exercises` (rustlings' `dev check`): every untouched exercise must
// FAIL its test (otherwise there is nothing to learn) and every reference
// solution must PASS it. Prints one line per check and "N passed, N failed".
import { formatResult, type CheckResult } from '@tasks-lab/lab-kit';
import { findLab, type Lab } from './labs.ts';
import { LESSONS } from './lessons.ts';
import { runExerciseTest } from './run.ts';

export async function checkExercise(lab: Lab): Promise<CheckResult[]> {
  const started = Date.now();
  const student = await runExerciseTest(lab, 'student', { quiet: true });
  const solution = await runExerciseTest(lab, 'solution', { quiet: true });
  const ms = Date.now() - started;
  const lastLines = (text: string) => text.trim().split('\n').slice(-6).join(' | ');
  return [
    {
      id: `exercise-${lab.lesson.number}-untouched-fails`,
      name: `lesson ${lab.lesson.number}: the untouched exercise (${lab.exercise?.file}) fails its test`,
      ok: student.exitCode !== 0,
      observed:
        student.exitCode !== 0 ? 'its test failed, as it should' : 'its test PASSED: the exercise is already solved',
      ms,
    },
    {
      id: `exercise-${lab.lesson.number}-solution-passes`,
      name: `lesson ${lab.lesson.number}: the reference solution (${lab.exercise?.solution}) passes`,
      ok: solution.exitCode === 0,
      observed: solution.exitCode === 0 ? 'its test passed' : `its test failed: ${lastLines(solution.output)}`,
      ms,
    },
  ];
}

/**
 * Two labs' exercises at a time (each test waits mostly on its process starting: two keep
 * the 2-core machine busy without crowding it), printed in lesson order all the same.
 */
export const EXERCISE_CONCURRENCY = 2;

/** Every lab that has an exercise, in lesson order. */
export const labsWithExercises = (): Lab[] =>
  LESSONS.map((lesson) => findLab(lesson)).filter((lab): lab is Lab => lab?.exercise !== undefined);

export async function checkAllExercises(
  print: (line: string) => void = console.log,
  labs: readonly Lab[] = labsWithExercises(),
): Promise<CheckResult[]> {
  const outcomes: Array<Promise<CheckResult[]>> = [];
  const slots = new Array<Promise<unknown>>(EXERCISE_CONCURRENCY).fill(Promise.resolve());
  labs.forEach((lab, i) => {
    // Lab i waits for lab i - EXERCISE_CONCURRENCY to finish: at most that many run at once.
    const outcome = slots[i % EXERCISE_CONCURRENCY]!.then(() => checkExercise(lab));
    slots[i % EXERCISE_CONCURRENCY] = outcome.catch(() => undefined);
    outcomes.push(outcome);
  });
  const results: CheckResult[] = [];
  for (const outcome of outcomes) {
    for (const result of await outcome) {
      results.push(result);
      print(formatResult(result));
    }
  }
  return results;
}
