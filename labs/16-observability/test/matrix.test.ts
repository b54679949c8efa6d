// The failure matrix's runner and records (src/matrix/*): the evidence a row keeps, the summary
// of a run, the recovery text the checks print, the CLI's arguments; then three quick rows run
// FOR REAL (their own databases and prefixes on the lab's MariaDB and Redis) into a folder of
// this file's own, to see the files a run writes and that a run never shows another's records.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMatrixArgs } from '../scripts/matrix.ts';
import { describeBudget, recoveryBudgetSeconds } from '../src/matrix/budget.ts';
import { MATRIX_CASES } from '../src/matrix/catalogue.ts';
import { COURSE_TIMINGS } from '../src/options.ts';
import { countDuplicateDeliveries, RowRecorder, secondsBetween, type EvidenceRecord } from '../src/matrix/evidence.ts';
import { MATRIX_ROWS, selectRows } from '../src/matrix/rows.ts';
import { judgeRecord, recoveryText, runMatrix } from '../src/matrix/run-matrix.ts';
import { NOT_RUN_IN_THIS_RUN, renderSummary, summaryTotals } from '../src/matrix/summary.ts';

const record = (id: string, changes: Partial<EvidenceRecord<unknown>> = {}): EvidenceRecord<unknown> => {
  const c = MATRIX_CASES.find((x) => x.id === id)!;
  return {
    case: c.id,
    title: c.title,
    course_row: c.courseRow,
    kind: c.kind,
    fault: c.fault,
    job_id: '0f1e2d3c-0000-4000-8000-000000000001',
    started_at: '2026-01-01T10:00:00.000Z',
    finished_at: '2026-01-01T10:00:03.000Z',
    observed_states: [],
    deliveries: [],
    sends: null,
    duplicate_deliveries: null,
    injected: [],
    recovery_seconds: null,
    recovery_measure: c.recoveryMeasure,
    recovery_window: null,
    recovery_budget_seconds: null,
    recovery_budget: null,
    artifact_sha256: null,
    expected: c.expected,
    observed: 'what was seen',
    result: 'pass',
    details: {},
    ...changes,
  };
};

describe('evidence', () => {
  it('When the sampler reads the same state again, Then only the changes are kept, at ms since the row started [test:matrix-states-changes-only]', () => {
    const rec = new RowRecorder(1000);
    rec.sample({ status: 'queued', attempts: 0, lease_token: null }, 1050);
    rec.sample({ status: 'queued', attempts: 0, lease_token: null }, 1100);
    rec.sample({ status: 'running', attempts: 1, lease_token: 'a' }, 1150);
    rec.sample({ status: 'running', attempts: 1, lease_token: 'a' }, 1200);
    rec.sample({ status: 'queued', attempts: 1, lease_token: null }, 1250);
    expect(rec.states).toEqual([
      { at_ms: 50, status: 'queued', attempts: 0, lease_token: null },
      { at_ms: 150, status: 'running', attempts: 1, lease_token: 'a' },
      { at_ms: 250, status: 'queued', attempts: 1, lease_token: null },
    ]);
    expect(rec.firstState((s) => s.status === 'queued', 100)?.at_ms).toBe(250);
  });

  it('When a message id is delivered again, Then it counts as a duplicate; a new message id does not', () => {
    const d = (message_id: string) => ({ at_ms: 0, message_id, claimed: false, published: false, lease_token: null });
    expect(countDuplicateDeliveries([d('e1'), d('e2'), d('e1'), d('e1')])).toBe(2);
    expect(secondsBetween(1000, 3414)).toBe(2.41);
    expect(secondsBetween(undefined, 3414)).toBeNull();
    expect(secondsBetween(3000, 1000)).toBeNull();
  });
});

describe('summary and recovery text', () => {
  it('When some rows ran and one could not, Then every case is listed in order, the unrun ones as not_run with their reason, and the totals add up [test:matrix-summary-not-run]', () => {
    const records = [
      record('db-fails-before-commit'),
      record('worker-killed-holding-lease', {
        result: 'not_run',
        reason: 'the worker script x does not exist',
        observed: 'not run: the worker script x does not exist',
        job_id: null,
      }),
      record('cancel', {
        result: 'fail',
        observed: 'final: running | twice (EXPECTED cancelled)',
        recovery_seconds: null,
      }),
      record('broker-down-at-submit', { recovery_seconds: 1.5 }),
    ];
    const md = renderSummary(records, { generatedAt: new Date('2026-01-01T10:00:00Z') });
    const rows = md.split('\n').filter((line) => /^\| \d+ \|/.test(line));
    expect(rows.map((line) => line.split('|')[2]!.trim())).toEqual(MATRIX_CASES.map((c) => c.id));
    expect(md).toContain(
      '| 1 | db-fails-before-commit | fault-point | pass | - | 0f1e2d3c | [json](./db-fails-before-commit.json) | [svg](./db-fails-before-commit.svg) |',
    );
    expect(md).toContain('| broker-down-at-submit | action | pass | 1.50 |');
    expect(md).toContain('not_run | - | - | - | - | the worker script x does not exist |');
    expect(md).toContain('**FAIL**');
    expect(md).toContain('running \\| twice');
    expect(rows.filter((line) => line.includes(NOT_RUN_IN_THIS_RUN))).toHaveLength(
      MATRIX_CASES.length - records.length,
    );
    expect(summaryTotals(records)).toEqual({ passed: 2, failed: 1, notRun: MATRIX_CASES.length - 3 });
    expect(md).toContain(`Totals: 2 passed, 1 failed, ${MATRIX_CASES.length - 3} not_run (of ${MATRIX_CASES.length}).`);
  });

  it('When a row has a recovery time, none by nature, or none though one was due, Then the check says which first', () => {
    expect(recoveryText(record('worker-killed-holding-lease', { recovery_seconds: 2.41 }))).toBe(
      'recovered in 2.41 s (kill -> succeeded)',
    );
    expect(recoveryText(record('queue-full'))).toBe('no recovery (a refusal)');
    expect(recoveryText(record('worker-killed-holding-lease', { result: 'fail' }))).toBe(
      'NOT recovered (kill -> succeeded never observed)',
    );
  });

  it('When a record was not run or its row threw, Then the judge fails it without reading its details', () => {
    const row = MATRIX_ROWS.find((r) => r.id === 'cancel')!;
    expect(
      judgeRecord(row, record('cancel', { result: 'not_run', reason: 'no script', observed: 'not run: no script' })),
    ).toEqual({ ok: false, observed: 'not run: no script' });
    expect(
      judgeRecord(
        row,
        record('cancel', { result: 'fail', reason: 'the row threw: boom', observed: 'the row threw: boom' }),
      ).ok,
    ).toBe(false);
  });

  it('When a recovery took longer than its budget, Then the row fails although its own judge passed; within it, it passes [test:matrix-recovery-over-budget-fails]', () => {
    const row = {
      ...MATRIX_ROWS.find((r) => r.id === 'worker-killed-holding-lease')!,
      judge: () => ({ ok: true, observed: 'recovered' }),
    };
    const budget = {
      recovery_budget_seconds: 6.2,
      recovery_budget: 'lease path: lease 1.5 s + scan 0.2 s + backoff 0.5 s + allowance 4 s = 6.2 s',
    };
    const over = judgeRecord(row, record('worker-killed-holding-lease', { recovery_seconds: 7.5, ...budget }));
    expect(over.ok).toBe(false);
    expect(over.observed).toMatch(/recovery 7\.50 s OVER its budget 6\.2 s \(EXPECTED at most lease path/);
    expect(judgeRecord(row, record('worker-killed-holding-lease', { recovery_seconds: 2.4, ...budget })).ok).toBe(true);
  });

  it("When the course's timings are used, Then the lease path's budget is its 60 s target and the unclaimed path's stays inside its 90 s [test:matrix-budgets-from-course-timings]", () => {
    expect(recoveryBudgetSeconds('lease', COURSE_TIMINGS)).toBe(60);
    expect(recoveryBudgetSeconds('unclaimed', COURSE_TIMINGS)).toBe(80);
    expect(describeBudget('lease', COURSE_TIMINGS)).toBe(
      'lease 30 s + scan 5 s + backoff 10 s + allowance 15 s = 60 s',
    );
    expect(MATRIX_CASES.filter((c) => !c.recoveryMeasure.startsWith('(')).every((c) => c.budget !== undefined)).toBe(
      true,
    );
  });
});

describe('the rows and the CLI', () => {
  it('When rows are selected, Then they keep the course order; an unknown id is refused with the ids there are', () => {
    expect(MATRIX_ROWS.map((r) => r.id)).toEqual(MATRIX_CASES.map((c) => c.id));
    expect(selectRows(['queue-full', 'cancel']).map((r) => r.id)).toEqual(['cancel', 'queue-full']);
    expect(() => selectRows(['nope'])).toThrow(/no matrix row "nope"; the rows are: db-fails-before-commit/);
    expect(parseMatrixArgs(['--only', 'cancel,queue-full'])).toEqual({ only: ['cancel', 'queue-full'], list: false });
    expect(parseMatrixArgs(['--only=cancel', '--list'])).toEqual({ only: ['cancel'], list: true });
    expect(() => parseMatrixArgs(['--fast'])).toThrow(/unknown argument/);
    expect(() => parseMatrixArgs(['--only'])).toThrow(/needs the row ids/);
  });
});

describe('a run, for real', () => {
  const folder = mkdtemp(join(tmpdir(), 'tasks-lab16-matrix-test-'));
  afterAll(async () => rm(await folder, { recursive: true, force: true }));

  it('When three rows run, Then each passes and leaves its record and timeline, and the summary lists the other rows as not run [test:matrix-writes-evidence]', async () => {
    const outDir = await folder;
    await writeFile(join(outDir, 'notes.txt'), 'a file the run does not own');
    await writeFile(join(outDir, 'queue-full.json'), '{"case":"queue-full","result":"pass"}');
    const only = ['db-fails-before-commit', 'same-slot-twice', 'duplicate-during-backoff'];
    const records = await runMatrix({ only, outDir });
    expect(records.map((r) => [r.case, r.result])).toEqual(only.map((id) => [id, 'pass']));
    const files = await readdir(outDir);
    for (const id of only) expect(files).toEqual(expect.arrayContaining([`${id}.json`, `${id}.svg`]));
    // A record of an earlier run is not this run's: removed, and listed as not run.
    expect(files).not.toContain('queue-full.json');
    expect(files).toContain('notes.txt');
    const saved = JSON.parse(await readFile(join(outDir, 'db-fails-before-commit.json'), 'utf8')) as EvidenceRecord<{
      jobs: number;
    }>;
    expect(saved.observed_states[0]).toMatchObject({ status: 'absent' });
    expect(saved.injected[0]?.what).toMatch(/LAB_FAULTS=after-job-insert:throw:once/);
    expect(saved.details.jobs).toBe(0);
    const summary = await readFile(join(outDir, 'summary.md'), 'utf8');
    expect(summary).toMatch(/\| queue-full \| action \| not_run \|.*not run in this run/);
    expect(summary).toContain(`Totals: 3 passed, 0 failed, ${MATRIX_CASES.length - 3} not_run`);
    expect(await readFile(join(outDir, 'same-slot-twice.svg'), 'utf8')).toContain('<svg');
  });
});
