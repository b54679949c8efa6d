// The docs' commands must run where the docs say to run them. A student who follows
// "Work in the lab folder" and then types `pnpm infra:up` meets "Command not found": pnpm looks
// for a script in the package of the folder it runs in, and that one is a script of the root.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findLab, LABS_DIR, REPO_ROOT } from '../src/labs.ts';
import { findLesson } from '../src/lessons.ts';

/** Where a doc's commands run: one folder, or (CONTRIBUTING.md, which speaks of labs in general) any lab. */
type Where = { folder: string } | 'any lab';

interface Shown {
  line: number;
  command: string;
  where: Where;
}

const SHELL_BLOCKS = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);
// pnpm's own commands: they need no script. (`pnpm test` and `pnpm start` run scripts, so they are not here.)
const PNPM_BUILTINS = new Set([
  'install',
  'i',
  'add',
  'remove',
  'update',
  'dlx',
  'create',
  'store',
  'why',
  'list',
  'ls',
  'outdated',
]);

function labFolders(): string[] {
  return readdirSync(LABS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(LABS_DIR, entry.name, 'package.json')))
    .map((entry) => join(LABS_DIR, entry.name));
}

/** A lesson doc says "Work in the lab folder: `cd labs/NN-slug`"; without that, it works from the root. */
function whereDocRuns(docPath: string, text: string): Where {
  const rel = relative(REPO_ROOT, docPath);
  if (rel === 'docs/CONTRIBUTING.md') return 'any lab';
  const labReadme = /^labs\/([^/]+)\/README\.md$/.exec(rel);
  if (labReadme) return { folder: join(LABS_DIR, labReadme[1] ?? '') };
  const lessonDoc = /^docs\/(\d\d-[^/]+)\.md$/.exec(rel);
  if (lessonDoc && new RegExp(`work in the lab folder|cd labs/${lessonDoc[1]}`, 'i').test(text)) {
    return { folder: join(LABS_DIR, lessonDoc[1] ?? '') };
  }
  return { folder: REPO_ROOT };
}

/**
 * The commands a doc shows: every line of a shell code block (and a `pnpm ...` line of an
 * unlabelled block). A block whose lead-in line says "from the repository root" runs there.
 */
function shownCommands(text: string, where: Where): Shown[] {
  const lines = text.split('\n');
  const shown: Shown[] = [];
  let block: { shell: boolean; where: Where } | undefined;
  let lastProse = '';
  lines.forEach((raw, index) => {
    const fence = /^\s*```(\w*)/.exec(raw);
    if (fence) {
      const atRoot = /from the repository root/i.test(lastProse);
      block = block
        ? undefined
        : { shell: SHELL_BLOCKS.has(fence[1] ?? ''), where: atRoot ? { folder: REPO_ROOT } : where };
      return;
    }
    const line = raw.trim();
    if (!block) {
      if (line) lastProse = line;
      return;
    }
    const command = line.replace(/^\$\s+/, '');
    if (block.shell || /^pnpm\s/.test(command)) shown.push({ line: index + 1, command, where: block.where });
  });
  return shown;
}

const tokens = (text: string) => text.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];

/** The pnpm invocations in one shell line: `A=1 pnpm x && pnpm y; echo` -> [['x'], ['y']]. */
function pnpmInvocations(command: string): string[][] {
  const withoutComment = command.replace(/(^|\s)#.*$/, '');
  return withoutComment
    .split(/&&|\|\||[;|]/)
    .map((part) => tokens(part.trim()))
    .map((words) => words.slice(words.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w))))
    .filter((words) => words[0] === 'pnpm')
    .map((words) => words.slice(1));
}

interface Manifest {
  name: string;
  scripts?: Record<string, string>;
}

const manifestOf = (folder: string) => JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
const hasBinary = (folder: string, name: string) =>
  existsSync(join(folder, 'node_modules', '.bin', name)) || existsSync(join(REPO_ROOT, 'node_modules', '.bin', name));

function packageFolder(name: string): string | undefined {
  return [
    REPO_ROOT,
    ...labFolders(),
    ...['runner', 'infra', 'lab-kit'].map((p) => join(REPO_ROOT, 'shared', p)),
    join(REPO_ROOT, 'perf'),
  ].find((folder) => existsSync(join(folder, 'package.json')) && manifestOf(folder).name === name);
}

/** What is wrong with running `pnpm <args>` in `folder`, or undefined when pnpm finds it there. */
function problemIn(folder: string, args: string[]): string | undefined {
  const [name, ...rest] = args;
  if (!name) return 'pnpm without a command';
  const shownAs = relative(REPO_ROOT, folder) || 'the repository root';
  if (name === 'exec')
    return rest[0] && hasBinary(folder, rest[0]) ? undefined : `no program "${rest[0]}" is installed for ${shownAs}`;
  if (PNPM_BUILTINS.has(name)) return undefined;
  const script = name === 'run' ? rest[0] : name;
  if (!script) return 'pnpm run without a script name';
  if (manifestOf(folder).scripts?.[script] !== undefined)
    return lessonProblem(folder, script, name === 'run' ? rest.slice(1) : rest);
  // Not a script: pnpm runs a program of that name, if the package has one (`pnpm vitest run`).
  if (name !== 'run' && hasBinary(folder, script)) return undefined;
  const atRoot = folder !== REPO_ROOT && manifestOf(REPO_ROOT).scripts?.[script] !== undefined;
  return `${shownAs} has no script "${script}"${atRoot ? ` (it is a script of the repository root: \`pnpm -w ${args.join(' ')}\` runs it from here)` : ''}`;
}

/** `pnpm lab 11` must name a lesson whose lab exists. */
function lessonProblem(folder: string, script: string, args: string[]): string | undefined {
  if (folder !== REPO_ROOT || script !== 'lab') return undefined;
  const lessonArg = args.find((a) => /^\d{1,2}$/.test(a));
  if (!lessonArg) return undefined;
  const lesson = findLesson(lessonArg);
  return lesson && findLab(lesson) ? undefined : `lesson ${lessonArg} has no lab yet`;
}

/** Reads pnpm's own options (-w, --filter) to find the folder the command really runs in. */
function commandProblem(args: string[], where: Where): string | undefined {
  let target: Where = where;
  let rest = args;
  for (;;) {
    const [flag, value] = rest;
    if (flag === '-w' || flag === '--workspace-root') {
      target = { folder: REPO_ROOT };
      rest = rest.slice(1);
    } else if (flag === '--filter' || flag === '-F' || flag?.startsWith('--filter=')) {
      const pkg = flag.startsWith('--filter=') ? flag.slice('--filter='.length) : value;
      const folder = pkg ? packageFolder(pkg) : undefined;
      if (!folder) return `--filter names no package of this workspace: ${pkg ?? '(nothing)'}`;
      target = { folder };
      rest = rest.slice(flag.startsWith('--filter=') ? 1 : 2);
    } else if (flag === '--silent' || flag === '-s') {
      rest = rest.slice(1);
    } else if (flag?.startsWith('-')) {
      return `this test does not know pnpm's option ${flag}: teach it, or write the command another way`;
    } else break;
  }
  if (target !== 'any lab') return problemIn(target.folder, rest);
  const problems = labFolders().map((folder) => problemIn(folder, rest));
  return problems.some((p) => p === undefined) ? undefined : `no lab has it: ${problems[0]}`;
}

function docsToCheck(): string[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(REPO_ROOT, 'docs', name));
  const labReadmes = labFolders()
    .map((folder) => join(folder, 'README.md'))
    .filter((path) => existsSync(path));
  return [join(REPO_ROOT, 'README.md'), join(REPO_ROOT, 'infra', 'README.md'), ...docs, ...labReadmes];
}

function problemsIn(docPath: string): string[] {
  const text = readFileSync(docPath, 'utf8');
  const problems: string[] = [];
  for (const { line, command, where } of shownCommands(text, whereDocRuns(docPath, text))) {
    for (const args of pnpmInvocations(command)) {
      const problem = commandProblem(args, where);
      if (problem) problems.push(`${relative(REPO_ROOT, docPath)}:${line}: \`pnpm ${args.join(' ')}\`: ${problem}`);
    }
  }
  return problems;
}

describe('the commands the docs show', () => {
  it('When a doc that works in the lab folder shows a root script, Then it is reported with the -w form; the -w form passes', () => {
    const lab08 = { folder: join(LABS_DIR, readdirSync(LABS_DIR).find((n) => n.startsWith('08-')) ?? '') };
    const doc = [
      'Work in the lab folder.',
      '',
      '```sh',
      'pnpm infra:up',
      'pnpm -w infra:up   # from anywhere',
      'pnpm worker',
      '```',
    ].join('\n');
    const problems = shownCommands(doc, lab08).flatMap(({ command, where }) =>
      pnpmInvocations(command).map((args) => commandProblem(args, where)),
    );
    expect(problems[0]).toMatch(/has no script "infra:up" .*`pnpm -w infra:up`/);
    expect(problems.slice(1)).toEqual([undefined, undefined]);
  });

  it('When a command line holds several commands, env settings and a comment, Then each pnpm invocation is read', () => {
    expect(pnpmInvocations("LAB_FAULTS='a:crash:once' pnpm worker   # terminal 1")).toEqual([['worker']]);
    expect(pnpmInvocations('pnpm sample:too-large && pnpm check:message /tmp/x.json; echo "exit $?"')).toEqual([
      ['sample:too-large'],
      ['check:message', '/tmp/x.json'],
    ]);
    expect(pnpmInvocations('npm install --global pnpm@12.4.2 && pnpm install')).toEqual([['install']]);
  });

  it('When a lead-in says "from the repository root", Then that block runs at the root', () => {
    const lab01 = { folder: join(LABS_DIR, readdirSync(LABS_DIR).find((n) => n.startsWith('01-')) ?? '') };
    const doc = [
      'From the repository root:',
      '',
      '```sh',
      'pnpm lab 01',
      '```',
      'Then:',
      '```sh',
      'pnpm lab 01',
      '```',
    ].join('\n');
    const [atRoot, inLab] = shownCommands(doc, lab01).map(({ command, where }) =>
      commandProblem(pnpmInvocations(command)[0] ?? [], where),
    );
    expect(atRoot).toBeUndefined();
    expect(inLab).toMatch(/no script "lab"/);
  });

  it.each(docsToCheck().map((path) => [relative(REPO_ROOT, path), path]))(
    'When %s shows a pnpm command, Then it exists in the folder the doc runs it from',
    (_name, path) => {
      expect(problemsIn(path)).toEqual([]);
    },
  );
});
