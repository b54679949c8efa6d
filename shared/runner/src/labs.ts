// Where a lesson's lab lives on disk and what it last reported.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CheckReport } from '@tasks-lab/lab-kit';
import type { Lesson } from './lessons.ts';

export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
export const LABS_DIR = join(REPO_ROOT, 'labs');

export interface ExerciseInfo {
  file: string;
  solution: string;
  test: string;
  /** The first stage of the hint: a question that points at the idea (`pnpm lab NN --hint`). */
  nudge?: string;
  /** The closer hint: the call or the order of steps (`pnpm lab NN --hint 2`). */
  hint: string;
}

export interface Lab {
  lesson: Lesson;
  dir: string;
  packageName: string;
  doc: string;
  /** The services the lab's checks use ("redis", "mysql"); `pnpm lab` brings them up first. */
  needs: Array<'redis' | 'mysql'>;
  exercise?: ExerciseInfo;
}

export interface LabResult extends CheckReport {
  lesson: string;
  finishedAt: string;
}

export type LabStatus = 'passed' | 'failed' | 'not run yet' | 'not available yet';

export function findLab(lesson: Lesson, labsDir = LABS_DIR): Lab | undefined {
  if (!existsSync(labsDir)) return undefined;
  const folder = readdirSync(labsDir).find((name) => name.startsWith(`${lesson.number}-`));
  if (!folder) return undefined;
  const dir = join(labsDir, folder);
  const manifestPath = join(dir, 'package.json');
  if (!existsSync(manifestPath)) return undefined;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    name: string;
    lab?: { doc?: string; needs?: Array<'redis' | 'mysql'>; exercise?: ExerciseInfo };
  };
  return {
    lesson,
    dir,
    packageName: manifest.name,
    doc: manifest.lab?.doc ?? `docs/${folder}.md`,
    needs: manifest.lab?.needs ?? [],
    exercise: manifest.lab?.exercise,
  };
}

/**
 * Where a command remembers its outcome for a lab (`.lab-result.json`, `.exercise-result.json`, ...):
 * the lab folder, git-ignored; TASKS_LAB_RESULT_DIR moves it (see lab-kit's VerifyOptions).
 */
export const labRecordPath = (lab: Lab, file: string) => join(process.env.TASKS_LAB_RESULT_DIR ?? lab.dir, file);

/** Where a lab's verify writes its outcome. */
export const resultPath = (lab: Lab) => labRecordPath(lab, '.lab-result.json');

/** A JSON record a command wrote, or undefined when there is none (or it cannot be read). */
export function readJsonFile<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The repository's own package.json (engines, packageManager, the course's settings). */
export const rootManifest = <T>(): T => JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as T;

/** The last verify outcome, remembered in the lab folder (git-ignored). */
export function readResult(lab: Lab, file = resultPath(lab)): LabResult | undefined {
  return readJsonFile<LabResult>(file);
}

export function statusOf(lab: Lab | undefined): { status: LabStatus; result?: LabResult } {
  if (!lab) return { status: 'not available yet' };
  const result = readResult(lab);
  if (!result) return { status: 'not run yet' };
  return { status: result.failed === 0 && result.passed > 0 ? 'passed' : 'failed', result };
}
