import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  collapseImports,
  compareLabs,
  exportedNames,
  exportsByModule,
  headerSentence,
  renderDiff,
  sharedShare,
  testNames,
} from '../src/diff.ts';
import type { Lab } from '../src/labs.ts';
import { LESSONS } from '../src/lessons.ts';

let root: string;
/** Twenty unchanged lines: a one-line change to a file this long reads best as a diff. */
const LONG = Array.from({ length: 20 }, (_, i) => `export const same${i} = ${i};\n`).join('');

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
      'src/store.ts': `${LONG}export const v = 1;\n`,
      'src/worker.ts': 'worker\n',
      'tsconfig.json': '{}\n',
    });
    const after = lab(11, {
      'src/store.ts': `${LONG}export const v = 2;\n`,
      'src/outbox.ts': 'outbox\n',
      'tsconfig.json': '{}\n',
      '.lab-result.json': '{}',
      '.walk-result.json': '{}',
      '.exercise-result.json': '{}',
      '.lab-result.only.json': '{}',
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

describe('reading a lesson', () => {
  it('When a file starts with a command line and a header comment, Then its first sentence describes it', () => {
    expect(
      headerSentence("// Lesson 15's claim: it waits for a locked row. Then more.\n// still the header\nimport x;\n"),
    ).toBe("Lesson 15's claim: it waits for a locked row.");
    expect(headerSentence('/**\n * A dead letter: why a job is no longer run.\n */\nexport {};\n')).toBe(
      'A dead letter: why a job is no longer run.',
    );
    expect(headerSentence('import x from "y";\n')).toBeUndefined();
  });

  it('When a test file declares tests and can-fail cases, Then both are named', () => {
    const text = [
      "it('When A, Then B', async () => {});",
      'it(`When ${n} jobs, Then C`, () => {});',
      "suite.breaks('one-claim', 'the claim skips its condition', broken, {});",
    ].join('\n');
    expect(testNames(text)).toEqual([
      'When A, Then B',
      'When ${n} jobs, Then C',
      'check one-claim fails when the claim skips its condition',
    ]);
  });

  it('When a module exports declarations and lists, Then every exported name is found', () => {
    const text = [
      'export const LAB = "15";',
      'export async function claimOrWait() {}',
      'export type Outcome = {};',
      "export { a, type B, c as d } from './x.ts';",
      "export * from './y.ts';",
    ].join('\n');
    expect(exportedNames(text)).toEqual(['* from ./y.ts', 'B', 'LAB', 'Outcome', 'a', 'claimOrWait', 'd']);
  });

  it('When an index re-exports from its modules, Then the default reading counts the names per module, in its order', () => {
    const text = [
      "export { a, type B } from './options.ts';",
      "export * from './trace.ts';",
      'export {',
      '  c,',
      '  d as e, // renamed',
      "} from './claim.ts';",
      "export { f } from './options.ts';",
      "export { g } from '@tasks-lab/11-mysql-leases';",
    ].join('\n');
    expect(exportsByModule(text)).toEqual([
      { module: 'options.ts', names: 3 },
      { module: 'trace.ts', names: 'all' },
      { module: 'claim.ts', names: 2 },
    ]);
  });

  it("When lesson B's file declares only what B adds, Then it is shown as B's file, not as a diff that removes A's lines", () => {
    root = mkdtempSync(join(tmpdir(), 'lab-diff-'));
    const aOptions = `${Array.from({ length: 20 }, (_, i) => `export const lessonTenOption${i} = ${i};`).join('\n')}\n`;
    const bOptions = `${Array.from({ length: 5 }, (_, i) => `export const lessonElevenOption${i} = ${i};`).join('\n')}\n`;
    const before = lab(10, { 'src/options.ts': aOptions, 'src/store.ts': `${LONG}export const x = 3;\n` });
    const after = lab(11, { 'src/options.ts': bOptions, 'src/store.ts': `${LONG}export const x = 4;\n` });
    expect(sharedShare(aOptions, bOptions)).toBe(0);
    const text = renderDiff(before, after);
    expect(text).toContain("=== src/options.ts, lesson 12's (5 lines; 0 % of them also in lesson 11's file");
    expect(text).not.toContain('-export const lessonTenOption0');
    expect(text).toContain('+export const x = 4;');
    expect(renderDiff(before, after, { full: true })).toContain('-export const lessonTenOption0');
  });

  it('When a printed file starts with its imports, Then they read as one line naming the modules, and the code is kept', () => {
    const file = [
      '// the header',
      "import type { Job } from 'bullmq';",
      'import {',
      '  a,',
      '  b,',
      "} from '@tasks-lab/13-admission';",
      "import './side-effect.ts';",
      "import { c } from '@tasks-lab/13-admission';",
      '',
      "export const imported = 'import { x } from nowhere';",
    ];
    expect(collapseImports(file)).toEqual([
      '// the header',
      'import … (7 lines) from bullmq, @tasks-lab/13-admission, ./side-effect.ts',
      '',
      "export const imported = 'import { x } from nowhere';",
    ]);
    expect(collapseImports(['export const x = 1;'])).toEqual(['export const x = 1;']);
  });

  it('When a test file changes, Then the tests the new lesson adds are listed by name', () => {
    root = mkdtempSync(join(tmpdir(), 'lab-diff-'));
    const before = lab(10, { 'test/app.test.ts': "it('When slots, Then one job', () => {});\n" });
    const after = lab(11, { 'test/app.test.ts': "it('When cancelled, Then 202', () => {});\n" });
    const text = renderDiff(before, after);
    expect(text).toContain("~ test/app.test.ts: 1 test of lesson 12; lesson 11's other 1 stay in its lab");
    expect(text).toContain('+ When cancelled, Then 202');
    expect(text).not.toContain('When slots');
  });
});
