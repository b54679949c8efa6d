// `pnpm lab NN --reset [--yes]`: the lab back to its fresh state, as on a clean clone: its database
// (tables, rows, migration records), its BullMQ keys (queues, jobs, any Job Scheduler it registered)
// and the files it wrote (artifacts/, evidence/). The services themselves keep running, and
// nothing outside the lab is touched: other labs use other databases and key prefixes.
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { deleteLabKeys, dropLabDatabase, ensureInfra, labDatabase, labPrefix } from '@tasks-lab/infra';
import { REPO_ROOT, type Lab } from './labs.ts';

/** The folders a lab writes at run time (git-ignored). */
const RUNTIME_FOLDERS = ['artifacts', 'evidence'];
/** Files a lab's steps write (lesson 07's record of the earlier labs' runs); not .lab-result.json, the student's progress. */
const RUNTIME_FILES = ['.earlier-labs.json'];

function countFiles(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce(
    (n, entry) => n + (entry.isDirectory() ? countFiles(join(dir, entry.name)) : 1),
    0,
  );
}

/** What a reset of this lab removes, in words, before anything is removed. */
export function resetPlan(lab: Lab): string[] {
  const n = lab.lesson.number;
  const folders = RUNTIME_FOLDERS.map((name) => join(lab.dir, name)).filter(
    (dir) => existsSync(dir) && statSync(dir).isDirectory(),
  );
  return [
    ...(lab.needs.includes('mysql') ? [`the database ${labDatabase(n)} (its tables, rows and migration records)`] : []),
    ...(lab.needs.includes('redis') ? [`every Redis key under ${labPrefix(n)}: (queues, jobs, schedules)`] : []),
    ...folders.map((dir) => `${relative(REPO_ROOT, dir)}/ (${countFiles(dir)} files)`),
    ...RUNTIME_FILES.map((name) => join(lab.dir, name))
      .filter((file) => existsSync(file))
      .map((file) => relative(REPO_ROOT, file)),
  ];
}

async function confirmed(lab: Lab, plan: string[]): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await prompt.question(
      `Reset lesson ${lab.lesson.number}? This removes:\n${plan.map((p) => `  - ${p}`).join('\n')}\n[y/N] `,
    );
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

/** Resets the lab; prints one line per thing removed. Returns the exit code. */
export async function resetLab(lab: Lab, options: { yes: boolean; print?: (line: string) => void }): Promise<number> {
  const print = options.print ?? console.log;
  const n = lab.lesson.number;
  const plan = resetPlan(lab);
  if (plan.length === 0) {
    print(`Lesson ${n} keeps nothing between runs: nothing to reset.`);
    return 0;
  }
  if (!options.yes && !(await confirmed(lab, plan))) {
    print(process.stdin.isTTY ? 'Not reset.' : `Not reset: confirm with --yes (pnpm -w lab ${n} --reset --yes).`);
    return 1;
  }
  if (lab.needs.length > 0) await ensureInfra({ services: lab.needs, log: (line) => print(`[infra] ${line}`) });
  if (lab.needs.includes('mysql')) {
    const dropped = await dropLabDatabase(n);
    print(
      dropped.existed
        ? `dropped the database ${dropped.database} (tables: ${dropped.tables.join(', ') || 'none'})`
        : `the database ${dropped.database} did not exist`,
    );
  }
  if (lab.needs.includes('redis')) {
    const { prefix, deleted } = await deleteLabKeys(n);
    print(`deleted ${deleted} Redis key${deleted === 1 ? '' : 's'} under ${prefix}:`);
  }
  for (const name of RUNTIME_FOLDERS) {
    const dir = join(lab.dir, name);
    if (!existsSync(dir)) continue;
    const files = countFiles(dir);
    rmSync(dir, { recursive: true, force: true });
    print(`removed ${relative(REPO_ROOT, dir)}/ (${files} file${files === 1 ? '' : 's'})`);
  }
  for (const name of RUNTIME_FILES) {
    const file = join(lab.dir, name);
    if (!existsSync(file)) continue;
    rmSync(file, { force: true });
    print(`removed ${relative(REPO_ROOT, file)}`);
  }
  print(`Lesson ${n} is as on a clean clone; its processes recreate the database and tables when they start.`);
  return 0;
}
