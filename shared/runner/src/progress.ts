// Where a student is in the course: which lessons' checks passed the last time they ran, which
// exercises they solved (`pnpm lab NN --exercise` remembers its last grade in the lab folder,
// git-ignored, as verify remembers its checks), and what comes next. `pnpm lab` ends with the
// progress bar; `pnpm lab next` says what to read and what to run.
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { findLab, labRecordPath, REPO_ROOT, readJsonFile, rootManifest, statusOf, type Lab } from './labs.ts';
import { LESSONS } from './lessons.ts';

/** Where `pnpm lab NN --exercise` remembers its last grade; TASKS_LAB_RESULT_DIR moves it, as for verify. */
export const exerciseResultPath = (lab: Lab) => labRecordPath(lab, '.exercise-result.json');

export interface ExerciseResult {
  lesson: string;
  passed: boolean;
  finishedAt: string;
}

export function writeExerciseResult(lab: Lab, passed: boolean): void {
  const result: ExerciseResult = { lesson: lab.lesson.number, passed, finishedAt: new Date().toISOString() };
  writeFileSync(exerciseResultPath(lab), `${JSON.stringify(result, null, 2)}\n`);
}

export function readExerciseResult(lab: Lab): ExerciseResult | undefined {
  return readJsonFile<ExerciseResult>(exerciseResultPath(lab));
}

/** One lesson as the progress counts it. `exercisePassed` is undefined for a lesson without an exercise. */
export interface LessonProgress {
  number: string;
  title: string;
  doc: string;
  checksPassed: boolean;
  exercisePassed?: boolean;
  exerciseFile?: string;
}

/** The lessons in order, read from each lab's remembered results. */
export function readProgress(): LessonProgress[] {
  return LESSONS.flatMap((lesson) => {
    const lab = findLab(lesson);
    if (!lab) return [];
    const exercise = lab.exercise ? (readExerciseResult(lab)?.passed ?? false) : undefined;
    return [
      {
        number: lesson.number,
        title: lesson.title,
        doc: lab.doc,
        checksPassed: statusOf(lab).status === 'passed',
        exercisePassed: exercise,
        exerciseFile: lab.exercise ? relative(REPO_ROOT, join(lab.dir, lab.exercise.file)) : undefined,
      },
    ];
  });
}

/** A lesson is done when its checks passed and, if it has one, its exercise passed. */
export const isDone = (lesson: LessonProgress): boolean => lesson.checksPassed && lesson.exercisePassed !== false;

/** `[######--------------]`: `done` of `total`, in `width` cells. */
export function progressBar(done: number, total: number, width = 20): string {
  const filled = total === 0 ? 0 : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

/** "progress [####----] 4 of 16 lessons passed, 3 of 12 exercises" */
export function formatProgress(lessons: readonly LessonProgress[]): string {
  const passed = lessons.filter((lesson) => lesson.checksPassed).length;
  const withExercise = lessons.filter((lesson) => lesson.exercisePassed !== undefined);
  const solved = withExercise.filter((lesson) => lesson.exercisePassed).length;
  return `progress ${progressBar(lessons.filter(isDone).length, lessons.length)} ${passed} of ${lessons.length} lessons' checks passed, ${solved} of ${withExercise.length} exercises solved`;
}

/** What `pnpm lab next` prints: the first lesson not done, what to read and what to run. */
export function formatNext(lessons: readonly LessonProgress[]): string[] {
  const next = lessons.find((lesson) => !isDone(lesson));
  if (!next) return ['Every lesson passed, with its exercise.', formatProgress(lessons)];
  const lines = [`Next: lesson ${next.number}, ${next.title}`, `  read  ${next.doc}`];
  if (!next.checksPassed) {
    lines.push(`  run   pnpm lab ${next.number}          (its checks; the doc's steps lead up to them)`);
  } else {
    lines.push(
      `  its checks passed; its exercise is next: ${next.exerciseFile}`,
      `  run   pnpm lab ${next.number} --hint   then edit the file, then   pnpm lab ${next.number} --exercise`,
    );
  }
  return [...lines, formatProgress(lessons)];
}

/**
 * Whether `--solution` waits for the student's own exercise to pass (a nudge, not a lock: `--force`
 * shows it anyway). An instructor turns it off for a class in the root package.json
 * (`"tasks-lab": { "solutionNudge": false }`); TASKS_LAB_SOLUTION_NUDGE=off turns it off for one
 * machine. @defaultValue on
 */
export function solutionNudgeOn(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.TASKS_LAB_SOLUTION_NUDGE === 'off') return false;
  if (env.TASKS_LAB_SOLUTION_NUDGE === 'on') return true;
  const root = rootManifest<{ 'tasks-lab'?: { solutionNudge?: boolean } }>();
  return root['tasks-lab']?.solutionNudge !== false;
}

/** What `--solution` says while the student's own exercise has not passed. */
export const solutionNudge = (lesson: string): string[] => [
  `Your exercise for lesson ${lesson} has not passed yet: the reference answer is more use once you have tried.`,
  `  pnpm -w lab ${lesson} --hint        a hint`,
  `  pnpm -w lab ${lesson} --exercise    grade your answer (once it passes, --solution shows the reference)`,
  `  pnpm -w lab ${lesson} --solution --force   the reference answer now`,
];
