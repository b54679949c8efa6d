// `pnpm lab diff 11 12`: what lesson 12 changed relative to lesson 11, read as the lesson.
//
// Lab N imports lab N-1 and its folder holds only what lesson N adds or changes, so comparing
// the two folders file by file is the lesson's change. The output is ordered the way an
// instructor reads a lesson, not alphabetically:
//   1. what the lesson adds: its schema change (the committed schema.txt, as a diff), its new
//      modules, checks, tests and exercise, each with the first sentence of its header comment;
//   2. the behaviour it changes: a unified diff of each src/ file both labs have, other than
//      the wiring;
//   3. the tests and checks it changes, as the tests added and removed, by name;
//   4. the re-wiring, last: the exports counted by module, the package's scripts and dependencies
//      as lists of what came and went, the other wiring files as diffs;
//   5. the files it does not repeat (it imports them from the lab that defines them).
// --full prints every added file and every changed file as a diff, whatever its role.
// Generated and per-machine files (node_modules, results, caches) are left out.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { plural } from '@tasks-lab/lab-kit';
import { type Lab, REPO_ROOT } from './labs.ts';

const IGNORED = new Set(['node_modules', '.turbo', 'artifacts', 'bench-results', 'evidence', 'dist', 'coverage']);
const IGNORED_FILES =
  /^\.(lab-result|lab-result\.only|exercise-result|repeat-result|walk-result|vitest-result|earlier-labs)\.json$|\.log$/;

export function listFiles(dir: string, base = dir): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (IGNORED.has(entry.name) || IGNORED_FILES.test(entry.name)) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...listFiles(full, base));
    else if (entry.isFile()) files.push(relative(base, full));
  }
  return files.sort();
}

export interface LabComparison {
  added: string[];
  changed: string[];
  unchanged: string[];
  kept: string[];
}

export function compareLabs(from: Lab, to: Lab): LabComparison {
  const before = new Set(listFiles(from.dir));
  const after = listFiles(to.dir);
  const comparison: LabComparison = { added: [], changed: [], unchanged: [], kept: [] };
  for (const file of after) {
    if (!before.has(file)) comparison.added.push(file);
    else if (readFileSync(join(from.dir, file)).equals(readFileSync(join(to.dir, file))))
      comparison.unchanged.push(file);
    else comparison.changed.push(file);
  }
  const afterSet = new Set(after);
  comparison.kept = [...before].filter((file) => !afterSet.has(file));
  return comparison;
}

/** What a file is for, in the order the output reads. */
export type FileRole = 'schema' | 'module' | 'check' | 'test' | 'exercise' | 'wiring';

/**
 * Composition, not behaviour: the package's exports and settings, its process entry points
 * and its description. A lab re-states these to plug its lesson in; they are read last.
 */
const WIRING =
  /^(src\/(index|options|database|server)\.ts|src\/[\w-]+-(process|cli)\.ts|package\.json|README\.md|tsconfig\.json|vitest\.config\.ts)$/;

export function roleOf(file: string): FileRole {
  if (file.startsWith('migrations/')) return 'schema';
  if (WIRING.test(file)) return 'wiring';
  if (file.startsWith('src/')) return 'module';
  if (file.startsWith('scripts/')) return 'check';
  if (file.startsWith('test/')) return 'test';
  if (file.startsWith('exercise/') || file.startsWith('solutions/')) return 'exercise';
  return 'wiring';
}

/**
 * The first sentence of a file's header comment (`//` or `--` lines, or a leading block
 * comment), without the command line an entry point's header often starts with.
 */
export function headerSentence(text: string): string | undefined {
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const comment = /^(?:\/\/|--|\/\*\*?|\*\/?)\s?(.*)$/.exec(line);
    if (!comment) break;
    const body = (comment[1] ?? '').replace(/\*\/$/, '').trim();
    if (body === '' && lines.length > 0) break;
    if (body !== '') lines.push(body);
  }
  const joined = lines.join(' ').replace(/\s+/g, ' ');
  if (joined === '') return undefined;
  const end = /\.(\s|$)/.exec(joined);
  const sentence = end ? joined.slice(0, end.index + 1) : joined;
  if (sentence.length <= 140) return sentence;
  const cut = sentence.slice(0, 140);
  return `${cut.slice(0, cut.lastIndexOf(' '))} …`;
}

const QUOTED = String.raw`(['"\x60])((?:\\.|(?!\1)[^\\])*)\1`;
const TEST_CALL = new RegExp(String.raw`\b(?:it|test)(?:\.\w+)?\(\s*${QUOTED}`, 'g');
// A can-fail case (lab-kit's canFailSuite): suite.breaks('check-id', 'what is broken', ...).
const CAN_FAIL_CASE = new RegExp(String.raw`\.breaks\(\s*${QUOTED},\s*${QUOTED.replaceAll('\\1', '\\3')}`, 'g');

/** The names of the tests a vitest file declares (`it('...')`, and can-fail cases), in order. */
export function testNames(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(TEST_CALL)) names.push(m[2] ?? '');
  for (const m of text.matchAll(CAN_FAIL_CASE)) names.push(`check ${m[2]} fails when ${m[4]}`);
  return names;
}

/** The names a module exports (declarations and export lists; `type` marks dropped). */
export function exportedNames(text: string): string[] {
  const names = new Set<string>();
  const declared =
    /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm;
  for (const m of text.matchAll(declared)) names.add(m[1]!);
  for (const m of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const part of (m[1] ?? '').split(',')) {
      const name = part
        .replace(/\/\/.*$/gm, '')
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (name) names.add(name);
    }
  }
  for (const m of text.matchAll(/^export\s+\*\s+from\s+'([^']+)'/gm)) names.add(`* from ${m[1]}`);
  return [...names].sort();
}

/** `context`: the lines of context around each change (the tools' default, 3, when not given). */
function unifiedDiff(a: string, b: string, color: boolean, context?: number): string {
  const [from, to] = [relative(REPO_ROOT, a), relative(REPO_ROOT, b)];
  const unified = context === undefined ? [] : [`-U${context}`];
  const result = spawnSync(
    'git',
    ['diff', '--no-index', ...unified, `--color=${color ? 'always' : 'never'}`, '--', from, to],
    {
      encoding: 'utf8',
      cwd: REPO_ROOT,
    },
  );
  if (result.error) {
    // Without git, fall back to the plain diff tool.
    const plain = spawnSync('diff', [context === undefined ? '-u' : `-U${context}`, from, to], {
      encoding: 'utf8',
      cwd: REPO_ROOT,
    });
    return plain.stdout;
  }
  return result.stdout;
}

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');

/** The terminal's escape character, which starts each colour code in git's coloured output. */
const ESC = String.fromCharCode(27);

/**
 * The change to the committed schema: the tables, columns, indexes and checks, without the file's
 * header comment (which only names the lab) and without git's file header.
 */
function schemaDiff(from: Lab, to: Lab, file: string, color: boolean): string {
  const folder = mkdtempSync(join(tmpdir(), 'lab-diff-schema-'));
  try {
    const body = (dir: string) =>
      read(dir, file)
        .split('\n')
        .filter((line) => !line.startsWith('#'))
        .join('\n');
    const before = join(folder, `lesson-${from.lesson.number}`);
    const after = join(folder, `lesson-${to.lesson.number}`);
    writeFileSync(before, body(from.dir));
    writeFileSync(after, body(to.dir));
    const lines = unifiedDiff(before, after, color, 2).trimEnd().split('\n');
    // With colour, a line starts with an escape sequence (ESC [ ... m) before its text.
    const plain = (line: string) => (line.startsWith(ESC) ? line.slice(line.indexOf('m') + 1) : line);
    const hunks = lines.findIndex((line) => plain(line).startsWith('@@'));
    return hunks < 0 ? '  (no change to the tables)' : lines.slice(hunks).join('\n');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
const lineCount = (text: string) => text.split('\n').length;

/** `a, b, c` wrapped at about 100 columns, each line indented. */
function wrapList(items: readonly string[], indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    const next = line === '' ? item : `${line}, ${item}`;
    if (`${indent}${next}`.length > 100 && line !== '') {
      lines.push(`${indent}${line},`);
      line = item;
    } else line = next;
  }
  if (line !== '') lines.push(`${indent}${line}`);
  return lines;
}

/** What came and what went between two lists of names. */
function delta(before: readonly string[], after: readonly string[]): { came: string[]; went: string[] } {
  const had = new Set(before);
  const has = new Set(after);
  return { came: after.filter((n) => !had.has(n)), went: before.filter((n) => !has.has(n)) };
}

function describeAdded(dir: string, file: string): string {
  const text = read(dir, file);
  const size = file.endsWith('.test.ts') ? plural(testNames(text).length, 'test') : `${lineCount(text)} lines`;
  const sentence = headerSentence(text);
  return `  + ${file} (${size})${sentence ? `: ${sentence}` : ''}`;
}

// A test of lab N-1 that lab N's file of the same name does not repeat is not gone: it still
// runs in lab N-1, against the code it tests. So only the new tests are listed, by name.
function testDelta(from: Lab, to: Lab, file: string): string[] {
  if (!file.endsWith('.test.ts'))
    return [`  ~ ${file} (${lineCount(read(to.dir, file))} lines; --full shows the diff)`];
  const { came, went } = delta(testNames(read(from.dir, file)), testNames(read(to.dir, file)));
  if (came.length === 0) return [`  ~ ${file}: the same tests as lesson ${from.lesson.number}'s, on this lab's parts`];
  const kept = went.length > 0 ? `; lesson ${from.lesson.number}'s other ${went.length} stay in its lab` : '';
  return [
    `  ~ ${file}: ${plural(came.length, 'test')} of lesson ${to.lesson.number}${kept}`,
    ...came.map((name) => `      + ${name}`),
  ];
}

/**
 * How many names an index re-exports from each of its modules, in the order it lists them:
 * `export { a, b } from './x.ts'` counts 2 for x.ts, `export * from './y.ts'` counts as "all".
 */
export function exportsByModule(text: string): { module: string; names: number | 'all' }[] {
  const found = new Map<string, number | 'all'>();
  for (const m of text.matchAll(/^export\s+(?:type\s+)?(\*|\{[^}]*\})\s+from\s+'\.\/([^']+)'/gm)) {
    const module = m[2] ?? '';
    const list = m[1] ?? '';
    if (list === '*') found.set(module, 'all');
    else {
      const names = exportedNames(`export ${list}`).length;
      const had = found.get(module) ?? 0;
      found.set(module, had === 'all' ? 'all' : had + names);
    }
  }
  return [...found].map(([module, names]) => ({ module, names }));
}

// The index lists the lab's own API by name; the names themselves are in the modules, which the
// sections above show. So the default reading says where the API comes from, by module, and how
// many of the lab below's names it stops re-exporting (they stay importable from that lab).
function exportDelta(from: Lab, to: Lab, file: string): string[] {
  const after = read(to.dir, file);
  const { went } = delta(exportedNames(read(from.dir, file)), exportedNames(after));
  const modules = exportsByModule(after).map(({ module, names }) => `${module} ${names}`);
  const gone =
    went.length > 0
      ? [
          `    ${went.length} of lesson ${from.lesson.number}'s names are not re-exported here: import them from ${from.packageName}`,
        ]
      : [];
  const own = modules.length > 0 ? wrapList(modules, '      ') : ['      none of its own'];
  return [`  ~ ${file}: the package's exports, by module (--full lists every name):`, ...own, ...gone];
}

function packageDelta(from: Lab, to: Lab, file: string): string[] {
  type Manifest = { scripts?: Record<string, string>; dependencies?: Record<string, string> };
  const before = JSON.parse(read(from.dir, file)) as Manifest;
  const after = JSON.parse(read(to.dir, file)) as Manifest;
  const scripts = delta(Object.keys(before.scripts ?? {}), Object.keys(after.scripts ?? {}));
  const deps = delta(Object.keys(before.dependencies ?? {}), Object.keys(after.dependencies ?? {}));
  const lines = [`  ~ ${file}:`];
  if (scripts.came.length > 0) lines.push(...wrapList(scripts.came, '      scripts added: '));
  if (scripts.went.length > 0) lines.push(...wrapList(scripts.went, '      scripts removed: '));
  if (deps.came.length > 0) lines.push(...wrapList(deps.came, '      depends on, new: '));
  if (deps.went.length > 0) lines.push(...wrapList(deps.went, '      no longer depends on: '));
  if (lines.length === 1) lines.push('      name and description only');
  return lines;
}

/**
 * How much of the new file's text the old one already has: the share of its non-blank lines
 * (trimmed) that also appear in the old file. A lab whose file declares only what its own
 * lesson adds (options.ts: lesson 15's options on top of lesson 14's, imported) shares little
 * with the file of the lab below, which declares lesson 14's: a unified diff of the two is
 * mostly lesson 14's lines taken out, which lesson 15 has not taken out at all.
 */
export function sharedShare(before: string, after: string): number {
  const had = new Set(before.split('\n').map((l) => l.trim()));
  const lines = after
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 3);
  return lines.length === 0 ? 1 : lines.filter((l) => had.has(l)).length / lines.length;
}

/**
 * A file's block of import statements as one line naming the modules it imports from: which
 * names come from where is plumbing the reader does not need to follow the lesson (the file
 * itself, and `--full`, have them). Everything else is kept as it is.
 */
export function collapseImports(lines: readonly string[]): string[] {
  const out: string[] = [];
  let modules: string[] = [];
  let count = 0;
  const flush = () => {
    if (count === 0) return;
    const prefix = `import … (${count} lines) from `;
    const [first = '', ...rest] = wrapList(modules, ' '.repeat(prefix.length));
    out.push(`${prefix}${first.trimStart()}`, ...rest);
    modules = [];
    count = 0;
  };
  let inside = false;
  for (const line of lines) {
    if (!inside && !/^import[\s{'"]/.test(line)) {
      flush();
      out.push(line);
      continue;
    }
    count++;
    const from = /(?:from\s+|^import\s+)['"]([^'"]+)['"]/.exec(line);
    if (from && !modules.includes(from[1] ?? '')) modules.push(from[1] ?? '');
    inside = !line.trimEnd().endsWith(';');
  }
  flush();
  return out;
}

/** Below this share a changed file is shown as the new file alone (see sharedShare). */
const MOSTLY_NEW = 0.5;

export function renderDiff(from: Lab, to: Lab, options: { full?: boolean; color?: boolean } = {}): string {
  const comparison = compareLabs(from, to);
  const color = options.color ?? false;
  const diffOf = (file: string) => unifiedDiff(join(from.dir, file), join(to.dir, file), color).trimEnd();
  // A file that is mostly new reads as itself; one that changes a few lines reads as its diff.
  const changeOf = (file: string) => {
    const text = read(to.dir, file);
    const share = sharedShare(read(from.dir, file), text);
    const lines = text.trimEnd().split('\n');
    if (options.full) return diffOf(file);
    const body = collapseImports(lines);
    if (share >= MOSTLY_NEW) {
      // A diff of a short file can be longer than the file: then the file is the shorter read.
      const diff = diffOf(file);
      if (diff.split('\n').length < body.length + 1) return diff;
    }
    return [
      `=== ${file}, lesson ${to.lesson.number}'s (${lines.length} lines; ${Math.round(share * 100)} % of them also in lesson ${from.lesson.number}'s file, which stays in its lab):`,
      ...body.map((line) => (line === '' ? '' : `  ${line}`)),
    ].join('\n');
  };
  const added = (role: FileRole) => comparison.added.filter((f) => roleOf(f) === role);
  const changed = (role: FileRole) => comparison.changed.filter((f) => roleOf(f) === role);
  const out: string[] = [
    `Lesson ${to.lesson.number} (${to.lesson.title})`,
    `relative to lesson ${from.lesson.number} (${from.lesson.title})`,
    `  ${relative(process.cwd(), from.dir) || from.dir} -> ${relative(process.cwd(), to.dir) || to.dir}`,
  ];
  const section = (title: string, lines: string[]) => {
    if (lines.length > 0) out.push('', title, ...lines);
  };

  // 1. What the lesson adds.
  const schemaChange = changed('schema').filter((f) => basename(f) === 'schema.txt');
  section(`What lesson ${to.lesson.number} adds`, [
    ...added('schema').map((f) => describeAdded(to.dir, f)),
    ...schemaChange.map((f) => `  the schema it runs on (${f}), as it changes:`),
    ...schemaChange.map((f) => schemaDiff(from, to, f, color)),
    ...(['module', 'check', 'test', 'exercise'] as const).flatMap((role) =>
      added(role).map((f) => describeAdded(to.dir, f)),
    ),
  ]);

  // 2. The behaviour it changes.
  section(
    `What lesson ${to.lesson.number} changes in modules lesson ${from.lesson.number} also has`,
    changed('module')
      .flatMap((f) => [changeOf(f), ''])
      .slice(0, -1),
  );

  // 3. Tests and checks, by name.
  section(
    'Its tests and checks, where both labs have the file',
    options.full
      ? [...changed('check'), ...changed('test'), ...changed('exercise')].map(diffOf)
      : [
          ...changed('test').flatMap((f) => testDelta(from, to, f)),
          ...[...changed('check'), ...changed('exercise')].map(
            (f) => `  ~ ${f} (${lineCount(read(to.dir, f))} lines; --full shows the diff)`,
          ),
        ],
  );

  // 4. The re-wiring, last.
  section(
    'Re-wiring: how the lab plugs the lesson in',
    changed('wiring').flatMap((f) => {
      if (!options.full && f === 'src/index.ts') return exportDelta(from, to, f);
      if (!options.full && f === 'package.json') return packageDelta(from, to, f);
      return [changeOf(f)];
    }),
  );

  // 5. What it does not repeat.
  section(`Not repeated: lesson ${to.lesson.number} imports these from the lab that defines them`, [
    ...wrapList(comparison.kept, '  '),
    `  same in both: ${comparison.unchanged.join(', ') || '-'}`,
  ]);

  if (options.full) {
    for (const file of comparison.added) {
      out.push('', `+++ ${file} (new in lesson ${to.lesson.number})`, read(to.dir, file).trimEnd());
    }
  } else {
    out.push('', 'Add --full to print the added files, and every changed file as a diff.');
  }
  return out.join('\n');
}
