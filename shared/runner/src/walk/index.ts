// The walker behind `pnpm lab NN --walk`, as the runner's CLI and `pnpm test` use it.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countLeakedSecrets, nativeMysqlPid, nativeRedisPid, withFileLock } from '@tasks-lab/infra';
import { REPO_ROOT, type Lab } from '../labs.ts';
import { resetLab } from '../reset.ts';
import { parseWalk } from './doc.ts';
import { portsTalkedTo, runWalk, type WalkReport } from './walk.ts';

export { parseWalk } from './doc.ts';
export { runWalk, type WalkReport, type StepResult } from './walk.ts';

const tsxLoader = import.meta.resolve('tsx');
const CHECK_IDS = fileURLToPath(new URL('./check-ids.ts', import.meta.url));

/** The ids of the lab's checks (its buildChecks(), in a process of its own). */
function checkIdsOf(lab: Lab): string[] {
  const result = spawnSync(process.execPath, ['--import', tsxLoader, CHECK_IDS, lab.dir], {
    cwd: lab.dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0)
    throw new Error(
      `could not list lesson ${lab.lesson.number}'s checks: ${result.stderr.trim().split('\n').slice(-3).join(' ')}`,
    );
  return JSON.parse(result.stdout.trim().split('\n').pop() ?? '[]') as string[];
}

export const walkResultPath = (lab: Lab) => join(lab.dir, '.walk-result.json');

/**
 * A lock per port the doc's commands talk to (the API on 8000): two walks that need one port take
 * turns, from this checkout or another, and walks that share none run side by side. Each service
 * of a walk is the lab's own (its database, its key prefix), so ports are all two walks share.
 */
export const walkLockFile = (port: number) => join(tmpdir(), `tasks-lab-walk-port-${port}.lock`);
const WALK_LOCK_WAIT_MS = 30 * 60_000;

/** The ports a lesson's doc talks to, read from its commands. */
export function docPorts(lab: Lab): number[] {
  return portsTalkedTo(parseWalk(readFileSync(join(REPO_ROOT, lab.doc), 'utf8')).steps);
}

/** Runs `work` holding the lock of each port, taken in ascending order (so two walks cannot deadlock). */
export function withPortLocks<T>(ports: readonly number[], work: () => Promise<T>): Promise<T> {
  const [port, ...rest] = [...ports].sort((a, b) => a - b);
  if (port === undefined) return work();
  return withFileLock(walkLockFile(port), () => withPortLocks(rest, work), {
    timeoutMs: WALK_LOCK_WAIT_MS,
    onWait: (holder) =>
      console.log(`Another walk (pid ${holder}) is using port ${port} on this machine; waiting for it to finish.`),
  });
}

/**
 * Resets the lab (a walk starts where a student on a clean clone starts), walks its doc, writes
 * `.walk-result.json` beside `.lab-result.json`, and fails if a generated password was printed.
 */
export function walkLesson(lab: Lab, options: { keepGoing?: boolean; signal?: AbortSignal } = {}): Promise<WalkReport> {
  return withPortLocks(docPorts(lab), () => walkLessonNow(lab, options));
}

async function walkLessonNow(lab: Lab, options: { keepGoing?: boolean; signal?: AbortSignal }): Promise<WalkReport> {
  console.log(`Resetting lesson ${lab.lesson.number} first, so the walk starts as on a clean clone:`);
  await resetLab(lab, { yes: true, print: (line) => console.log(`  ${line}`) });
  let output = '';
  const report = await runWalk({
    text: readFileSync(join(REPO_ROOT, lab.doc), 'utf8'),
    docName: lab.doc,
    root: REPO_ROOT,
    lesson: lab.lesson.number,
    labFolder: relative(REPO_ROOT, lab.dir),
    checkIds: async () => checkIdsOf(lab),
    keepGoing: options.keepGoing,
    keepPids: () => new Set([nativeRedisPid(), nativeMysqlPid()].filter((pid): pid is number => pid !== undefined)),
    onOutput: (text) => (output += text),
    signal: options.signal,
  });
  const leaks = countLeakedSecrets(output);
  if (leaks > 0) {
    report.failed++;
    report.problems.push(`${leaks} generated password(s) from .env.tasks appeared in what the walk's commands printed`);
    console.log(`✗ FAIL  ${report.problems.at(-1)}`);
  }
  writeFileSync(
    walkResultPath(lab),
    `${JSON.stringify({ ...report, finishedAt: new Date().toISOString() }, null, 2)}\n`,
  );
  return report;
}
