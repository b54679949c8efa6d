import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compareLabs, renderDiff } from '../src/diff.ts';
import type { Lab } from '../src/labs.ts';
import { LESSONS } from '../src/lessons.ts';

let root: string;

function lab(index: number, files: Record<string, string>): Lab {
  const dir = join(root, `lab${index}`);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  const lesson = LESSONS[index];
  if (!lesson) throw new Error(`LESSONS has no lesson at index ${index}`);
  return { lesson, dir, packageName: `lab${index}`, doc: 'doc.md', needs: [] };
}

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('compareLabs', () => {
  it('When lesson B adds, changes and keeps files, Then each lands in its own list and generated files are ignored', () => {
    root = mkdtempSync(join(tmpdir(), 'lab-diff-'));
    const before = lab(10, {
      'src/store.ts': 'export const v = 1;\n',
      'src/worker.ts': 'worker\n',
      'tsconfig.json': '{}\n',
    });
    const after = lab(11, {
      'src/store.ts': 'export const v = 2;\n',
      'src/outbox.ts': 'outbox\n',
      'tsconfig.json': '{}\n',
      '.lab-result.json': '{}',
      'node_modules/x/index.js': 'x',
    });
    expect(compareLabs(before, after)).toEqual({
      added: ['src/outbox.ts'],
      changed: ['src/store.ts'],
      unchanged: ['tsconfig.json'],
      kept: ['src/worker.ts'],
    });
    const text = renderDiff(before, after);
    expect(text).toContain('+ src/outbox.ts');
    expect(text).toContain('-export const v = 1;');
    expect(text).toContain('+export const v = 2;');
  });
});
