// `pnpm lab diff 11 12`: what lesson 12 changed relative to lesson 11.
//
// Lab N imports lab N-1 and its folder holds only what lesson N adds or changes,
// so comparing the two folders file by file reads as the lesson's change:
//   added    files that lesson 12 introduces (shown in full with --full)
//   changed  files both labs have, with a unified diff (same role, new behaviour)
//   kept     files only lesson 11 has: lesson 12 still uses them through its import
// Generated and per-machine files (node_modules, results, caches) are left out.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT, type Lab } from './labs.ts';

const IGNORED = new Set(['node_modules', '.turbo', 'artifacts', 'bench-results', 'evidence', 'dist', 'coverage']);
const IGNORED_FILES = /^\.(lab-result|vitest-result|earlier-labs)\.json$/;

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
    else if (readFileSync(join(from.dir, file)).equals(readFileSync(join(to.dir, file)))) comparison.unchanged.push(file);
    else comparison.changed.push(file);
  }
  const afterSet = new Set(after);
  comparison.kept = [...before].filter((file) => !afterSet.has(file));
  return comparison;
}

function unifiedDiff(a: string, b: string, color: boolean): string {
  const result = spawnSync(
    'git',
    ['diff', '--no-index', `--color=${color ? 'always' : 'never'}`, '--', relative(REPO_ROOT, a), relative(REPO_ROOT, b)],
    { encoding: 'utf8', cwd: REPO_ROOT },
  );
  if (result.error) {
    // Without git, fall back to the plain diff tool.
    const plain = spawnSync('diff', ['-u', relative(REPO_ROOT, a), relative(REPO_ROOT, b)], { encoding: 'utf8', cwd: REPO_ROOT });
    return plain.stdout;
  }
  return result.stdout;
}

const lineCount = (path: string) => readFileSync(path, 'utf8').split('\n').length;

export function renderDiff(from: Lab, to: Lab, options: { full?: boolean; color?: boolean } = {}): string {
  const comparison = compareLabs(from, to);
  const out: string[] = [];
  out.push(`Lesson ${to.lesson.number} (${to.lesson.title})`);
  out.push(`relative to lesson ${from.lesson.number} (${from.lesson.title})`);
  out.push(`  ${relative(process.cwd(), from.dir) || from.dir} -> ${relative(process.cwd(), to.dir) || to.dir}`);
  out.push('');
  out.push(`Added by lesson ${to.lesson.number} (${comparison.added.length}):`);
  for (const file of comparison.added) out.push(`  + ${file} (${lineCount(join(to.dir, file))} lines)`);
  out.push(`Changed (${comparison.changed.length}):`);
  for (const file of comparison.changed) out.push(`  ~ ${file}`);
  out.push(
    `Only in lesson ${from.lesson.number} (${comparison.kept.length}; lesson ${to.lesson.number} imports what it uses from the lab that defines it):`,
  );
  for (const file of comparison.kept) out.push(`  = ${file}`);
  out.push(`Same in both (${comparison.unchanged.length}): ${comparison.unchanged.join(', ') || '-'}`);
  for (const file of comparison.changed) {
    out.push('');
    out.push(unifiedDiff(join(from.dir, file), join(to.dir, file), options.color ?? false).trimEnd());
  }
  if (options.full) {
    for (const file of comparison.added) {
      out.push('');
      out.push(`+++ ${file} (new in lesson ${to.lesson.number})`);
      out.push(readFileSync(join(to.dir, file), 'utf8').trimEnd());
    }
  } else if (comparison.added.length > 0) {
    out.push('');
    out.push('Add --full to print the added files too.');
  }
  return out.join('\n');
}

