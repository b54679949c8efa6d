// `pnpm lab report`: rows built from the records a lab folder holds (checks, --repeat counts, the
// exercise's grade, the walk), the same fields in the table, the JSON and the CSV, and a row saying
// "not run" for what has no record. Each case writes its records into a folder of its own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT, type Lab } from '../src/labs.ts';
import { formatCsv, formatTable, lessonRows, REPORT_FIELDS } from '../src/report.ts';

const dir = mkdtempSync(join(tmpdir(), 'report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
});

const fakeLab: Lab = {
  lesson: { number: '09', title: 'Redelivery', slug: 'redelivery' } as Lab['lesson'],
  dir,
  packageName: '@tasks-lab/09-x',
  doc: 'docs/09-x.md',
  needs: [],
  exercise: { file: 'exercise/a.ts', solution: 'solutions/a.ts', test: 'test/exercise.test.ts', hint: 'h' },
};
const write = (name: string, value: unknown) => writeFileSync(join(dir, name), JSON.stringify(value));

describe('pnpm lab report', () => {
  it('When a lab holds every record, Then each check, the exercise and the walk are a row, with the flaky count from --repeat [test:report-rows-from-records]', () => {
    vi.stubEnv('TASKS_LAB_RESULT_DIR', undefined);
    write('.lab-result.json', {
      lesson: '09',
      finishedAt: '2026-12-08T00:00:00.000Z',
      passed: 1,
      failed: 1,
      results: [
        { id: 'steady', name: 's', ok: true, observed: 'fine', ms: 12 },
        { id: 'racy', name: 'r', ok: false, observed: 'expected 1 delivery, saw 2, "twice"', ms: 40 },
      ],
    });
    write('.repeat-result.json', {
      lesson: '09',
      finishedAt: 'x',
      runs: 10,
      checks: { racy: { passes: 7, failures: 3 } },
    });
    write('.exercise-result.json', { lesson: '09', passed: true, finishedAt: '2026-12-08T00:01:00.000Z' });
    write('.walk-result.json', {
      passed: 20,
      failed: 1,
      notWalked: 0,
      ms: 9000,
      finishedAt: '2026-12-08T00:02:00.000Z',
    });
    const rows = lessonRows(fakeLab);
    expect(rows.map((r) => [r.kind, r.id, r.outcome, r.runs, r.flaky])).toEqual([
      ['check', 'steady', 'passed', 0, 0],
      ['check', 'racy', 'failed', 10, 3],
      ['exercise', 'exercise', 'passed', 0, 0],
      ['walk', 'walk', 'failed', 0, 0],
    ]);
    const csv = formatCsv(rows).split('\n');
    expect(csv[0]).toBe(REPORT_FIELDS.join(','));
    expect(csv[2]).toBe(
      '09,check,racy,failed,40,2026-12-08T00:00:00.000Z,10,3,"expected 1 delivery, saw 2, ""twice"""',
    );
    const table = formatTable(rows);
    expect(table[1]).toBe('09      1/2           passed    failed    1');
    expect(table).toContain('  09 check racy: expected 1 delivery, saw 2, "twice"');
  });

  it('When a lab has no records, Then its checks, exercise and walk are rows that say not run [test:report-not-run]', () => {
    const empty = mkdtempSync(join(tmpdir(), 'report-empty-'));
    try {
      const rows = lessonRows({ ...fakeLab, dir: empty });
      expect(rows.map((r) => [r.kind, r.outcome])).toEqual([
        ['check', 'not run'],
        ['exercise', 'not run'],
        ['walk', 'not run'],
      ]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('When an instructor asks for JSON, Then it names the fields and every row has exactly them [test:report-json-fields]', {
    timeout: 60_000,
  }, () => {
    const run = spawnSync('pnpm', ['--silent', 'lab', 'report', '--json'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { fields: string[]; rows: Record<string, unknown>[] };
    expect(report.fields).toEqual([...REPORT_FIELDS]);
    expect(report.rows.length).toBeGreaterThanOrEqual(16 * 2);
    for (const row of report.rows) expect(Object.keys(row)).toEqual([...REPORT_FIELDS]);
  });
});
