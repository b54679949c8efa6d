// Lesson 16's failure matrix in the coverage data: each of the course's 15 rows is an item
// (section failure-matrix, floor 15) graded by its own `matrix-<row>` check. These tests judge
// the REAL lesson 16 data (labs/16-observability/scripts/coverage.ts, its buildChecks() ids and
// its test tags) and take one row away, both ways a row can disappear.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Check, CoverageItem } from '@tasks-lab/lab-kit';
import { COURSE_ITEM_FLOORS, judgeCoverage, testTags } from '../src/coverage.ts';
import { LABS_DIR } from '../src/labs.ts';

const LAB16 = join(LABS_DIR, '16-observability');
const load = async <T>(file: string): Promise<T> => (await import(pathToFileURL(join(LAB16, file)).href)) as T;

const { COVERAGE } = await load<{ COVERAGE: readonly CoverageItem[] }>('scripts/coverage.ts');
const { buildChecks } = await load<{ buildChecks: () => readonly Check[] }>('scripts/checks.ts');
const checkIds = new Set(buildChecks().map((c) => c.id));
const { tags } = testTags(LAB16);
const matrixItems = COVERAGE.filter((i) => i.section === 'failure-matrix');
const ROW = 'matrix-sent-not-confirmed';

describe("lesson 16's failure matrix rows in the coverage", () => {
  it('When the real lesson 16 data is judged, Then its 15 matrix rows are items, each graded by its own matrix check, and nothing is a problem', () => {
    expect(COURSE_ITEM_FLOORS['16']?.['failure-matrix']).toBe(15);
    expect(matrixItems).toHaveLength(15);
    const graders = matrixItems.map((i) => i.gradedBy ?? []);
    expect(graders.every((refs) => refs.length === 1 && refs[0]!.startsWith('check:matrix-'))).toBe(true);
    expect(new Set(graders.map((refs) => refs[0])).size).toBe(15);
    expect(judgeCoverage('16', COVERAGE, checkIds, tags).problems).toEqual([]);
  });

  it('When a matrix row disappears from the lab (its check is gone), Then coverage fails naming the check', () => {
    expect(checkIds.has(ROW)).toBe(true);
    const withoutRow = new Set([...checkIds].filter((id) => id !== ROW));
    const problems = judgeCoverage('16', COVERAGE, withoutRow, tags).problems;
    // Its own item fails (and so does every other item that cites it: the drill, an acceptance item).
    expect(problems.some((p) => new RegExp(`^failure-matrix ".*": check:${ROW} does not exist`).test(p))).toBe(true);
    expect(problems.every((p) => p.includes(`check:${ROW} does not exist`))).toBe(true);
  });

  it("When a matrix row disappears from the coverage data (its item is gone), Then the section falls under the course's 15 and coverage fails", () => {
    const withoutItem = COVERAGE.filter(
      (i) => !(i.section === 'failure-matrix' && i.gradedBy?.includes(`check:${ROW}`)),
    );
    expect(withoutItem).toHaveLength(COVERAGE.length - 1);
    expect(judgeCoverage('16', withoutItem, checkIds, tags).problems).toEqual([
      'failure-matrix: 14 item(s), the course has 15',
    ]);
  });

  it('When a matrix row is marked doc-only instead of graded, Then it is refused: a row says what must hold', () => {
    const docOnly = COVERAGE.map((i) =>
      i.section === 'failure-matrix' && i.gradedBy?.includes(`check:${ROW}`)
        ? { section: i.section, item: i.item, docOnly: 'not run' }
        : i,
    );
    expect(judgeCoverage('16', docOnly, checkIds, tags).problems.join('\n')).toMatch(
      /failure-matrix ".*": a failure-matrix item says what must hold/,
    );
  });
});
