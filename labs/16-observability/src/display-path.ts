// A path as a person reads it: relative to the folder the command was typed in, when it lies
// inside it (`artifacts/<job>.<token>.json`, `evidence/summary.md`), else the absolute path. What
// `pnpm terminal`, `pnpm housekeeping` and `pnpm matrix` print then reads the same on every clone.
import { isAbsolute, relative } from 'node:path';

export function displayPath(file: string, cwd: string = process.cwd()): string {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}
