import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CoverageItem } from '@tasks-lab/lab-kit';
import { coverageTable, DOC_BEGIN, DOC_END, judgeCoverage, testTags, withCoverageBlock } from '../src/coverage.ts';

const floorsMet = (extra: CoverageItem[] = []): CoverageItem[] => [
  ...['a', 'b', 'c'].map((x) => ({ section: 'learning-check' as const, item: `learn ${x}`, gradedBy: ['check:one'] })),
  ...['a', 'b', 'c'].map((x) => ({
    section: 'implementation-decision' as const,
    item: `decide ${x}`,
    gradedBy: ['test:tagged'],
  })),
  { section: 'drill', item: 'drill', gradedBy: ['check:one'] },
  ...['a', 'b', 'c'].map((x) => ({ section: 'acceptance' as const, item: `accept ${x}`, gradedBy: ['check:one'] })),
  ...['a', 'b'].map((x) => ({
    section: 'troubleshooting' as const,
    item: `trouble ${x}`,
    docOnly: 'nothing to observe',
  })),
  { section: 'exercise', item: 'exercise', gradedBy: ['test:tagged'] },
  ...extra,
];

describe('judgeCoverage', () => {
  it('When every item is graded by ids that exist and the floors are met, Then there is no problem', () => {
    const judged = judgeCoverage('01', floorsMet(), new Set(['one']), new Set(['tagged']));
    expect(judged.problems).toEqual([]);
    expect(judged).toMatchObject({ graded: 11, docOnly: 2, uncovered: 0 });
  });

  it('When an item names a check or test id that does not exist, Then it is a problem naming the reference', () => {
    const judged = judgeCoverage(
      '01',
      floorsMet([{ section: 'deep-dive', item: 'x', gradedBy: ['check:gone', 'test:missing', 'vitest title'] }]),
      new Set(['one']),
      new Set(['tagged']),
    );
    expect(judged.problems.join('\n')).toMatch(/check:gone does not exist/);
    expect(judged.problems.join('\n')).toMatch(/test:missing does not exist/);
    expect(judged.problems.join('\n')).toMatch(/vitest title does not exist/);
  });

  it('When an item has neither grading nor a reason, Then it counts as not covered', () => {
    const judged = judgeCoverage(
      '01',
      floorsMet([{ section: 'deep-dive', item: 'forgotten' }]),
      new Set(['one']),
      new Set(['tagged']),
    );
    expect(judged.uncovered).toBe(1);
    expect(judged.problems).toContain('deep-dive "forgotten": nothing grades it and no reason is given');
  });

  it('When a learning check is marked doc-only, Then it is refused: what must hold is graded', () => {
    const judged = judgeCoverage(
      '01',
      floorsMet([{ section: 'learning-check', item: 'seen', docOnly: 'trust me' }]),
      new Set(['one']),
      new Set(['tagged']),
    );
    expect(judged.problems.join('\n')).toMatch(/learning-check "seen": a learning-check item says what must hold/);
  });

  it('When a section has fewer items than the course, Then the floor is a problem', () => {
    const judged = judgeCoverage('08', floorsMet(), new Set(['one']), new Set(['tagged']));
    expect(judged.problems).toContain('implementation-decision: 3 item(s), the course has 4');
    expect(judged.problems).toContain('troubleshooting: 2 item(s), the course has 3');
  });
});

describe('testTags', () => {
  it('When test titles carry [test:<id>] tags, Then each is found, and a repeated tag is a problem', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coverage-tags-'));
    try {
      mkdirSync(join(dir, 'test', 'nested'), { recursive: true });
      writeFileSync(
        join(dir, 'test', 'a.test.ts'),
        "it('When x, Then y [test:first-tag]', () => {});\nit('plain title', () => {});",
      );
      writeFileSync(
        join(dir, 'test', 'nested', 'b.test.ts'),
        "it('[test:second] and [test:first-tag] again', () => {});",
      );
      const { tags, problems } = testTags(dir);
      expect([...tags].sort()).toEqual(['first-tag', 'second']);
      expect(problems).toEqual(['test tag [test:first-tag] is used twice']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the doc table', () => {
  it('When the doc has no block, Then one is appended; when it has one, Then only the block is replaced', () => {
    const table = coverageTable([{ section: 'drill', item: 'kill | restart', gradedBy: ['check:one'] }]);
    expect(table).toContain('| drill | kill \\| restart | `check:one` |');
    const appended = withCoverageBlock('# Lesson\n\ntext\n', table);
    expect(appended).toContain(`## Course coverage\n\n${DOC_BEGIN}\n${table}\n${DOC_END}`);
    const replaced = withCoverageBlock(appended.replace('`check:one`', '`check:stale`') + '\nafter\n', table);
    expect(replaced).toContain('`check:one`');
    expect(replaced).not.toContain('check:stale');
    expect(replaced.endsWith('\nafter\n')).toBe(true);
  });
});
