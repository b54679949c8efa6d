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
      observed: student.exitCode !== 0 ? 'its test failed, as it should' : 'its test PASSED: the exercise is already solved',
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

export async function checkAllExercises(print: (line: string) => void = console.log): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const lesson of LESSONS) {
    const lab = findLab(lesson);
    if (!lab?.exercise) continue;
    for (const result of await checkExercise(lab)) {
      results.push(result);
      print(formatResult(result));
    }
  }
  return results;
}

