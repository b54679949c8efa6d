// The decision record's grader, on the real reference record and template, against
// throwaway recorded runs (so these tests do not depend on labs 01-06 having run).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KIND_RULES, parseDecisionRecord, WORK_KINDS } from '../src/decision-record.ts';
import { gradeDecisionRecord, gradeProblems } from '../src/evidence.ts';
import { addEarlierLabs, addLabResult, makeLabsDir, runBacking } from './fake-labs.ts';

const labDir = fileURLToPath(new URL('..', import.meta.url));
const reference = readFileSync(join(labDir, 'solutions', 'decision-record.md'), 'utf8');
const template = readFileSync(join(labDir, 'exercise', 'decision-record.md'), 'utf8');

/** The reference record with one piece of text replaced (the test says which). */
function edited(from: string, to: string): string {
  expect(reference).toContain(from);
  return reference.replace(from, to);
}

/** Grades markdown against a run that backs the reference record's values. */
function grade(markdown: string, observedFor?: (checkId: string, value: string) => string) {
  return gradeDecisionRecord(parseDecisionRecord(markdown), runBacking(parseDecisionRecord(reference), observedFor));
}

describe('parseDecisionRecord', () => {
  it('When the reference record is read, Then it places all four kinds and cites values from the labs that measured each [test:reference-record-parses]', () => {
    const record = parseDecisionRecord(reference);
    expect(record.placements.map((row) => row.kind)).toEqual([...WORK_KINDS]);
    for (const kind of WORK_KINDS) {
      const cited = record.evidence.filter((row) => row.kind === kind);
      expect(cited.length).toBeGreaterThan(0);
      for (const row of cited) expect(KIND_RULES[kind].labs).toContain(row.lab);
    }
    expect(Object.values(record.queue).every((line) => line !== '')).toBe(true);
  });

  it('When the untouched template is read, Then it has a row per kind and every cell to fill in is empty', () => {
    const record = parseDecisionRecord(template);
    expect(record.placements.map((row) => [row.kind, row.executor, row.delivery, row.limit])).toEqual(
      WORK_KINDS.map((kind) => [kind, '', '', '']),
    );
    expect(record.evidence.map((row) => [row.kind, row.lab, row.checkId, row.value])).toEqual(
      WORK_KINDS.map((kind) => [kind, '', '', '']),
    );
    expect(record.queue).toEqual({ broker: '', worker: '', sourceOfTruth: '', delivery: '', resultCache: '' });
  });
});

describe('gradeDecisionRecord', () => {
  it('When every cited value is in the recorded run, Then the reference record passes [test:record-passes-with-its-run]', () => {
    const result = grade(reference);
    expect(gradeProblems(result)).toEqual([]);
    expect(result.lines[0]).toBe(
      'io-wait -> event-loop/direct [lab 02 [reads-at-once-limited] "peak reads in flight 2 (limit 2)", lab 02 [queue-bounded] "longest queue 4 (capacity 4)"]',
    );
  });

  it('When the template is graded untouched, Then each empty cell is named [test:template-names-empty-cells]', () => {
    const result = grade(template);
    expect(result.placement).toContain('io-wait: executor not filled in (event-loop, worker-thread, separate-process)');
    expect(result.placement).toContain(
      'durable: "what it does not solve" is empty (every choice leaves something unsolved)',
    );
    expect(result.evidence).toContain('cpu-bound: lab, check id and value must all be filled in');
    expect(result.queue).toHaveLength(5);
  });

  it('When a cited value is not what the run observed, Then the record fails naming the check and what it did observe [test:value-must-be-in-run]', () => {
    const result = grade(reference, (checkId, value) =>
      checkId === 'reads-at-once-limited' ? 'peak reads in flight 3 (limit 2)' : value,
    );
    expect(result.evidence).toEqual([
      expect.stringMatching(
        /^io-wait: lab 02-fake check \[reads-at-once-limited\] observed "before, peak reads in flight 3 \(limit 2\), after" in your run of .*, which does not contain "peak reads in flight 2 \(limit 2\)"$/,
      ),
    ]);
  });

  it('When a value is a bare figure or has no figure, Then it is not a measured value', () => {
    expect(grade(edited('| GET old id -> 404 |', '| 404 |')).evidence).toEqual([
      expect.stringContaining('"404" is not a measured value'),
    ]);
    expect(grade(edited('| 0 scores returned |', '| scores returned |')).evidence).toEqual([
      expect.stringContaining('is not a measured value'),
    ]);
  });

  it('When a cited check failed in the run, Then it is not evidence', () => {
    const record = parseDecisionRecord(reference);
    const run = runBacking(record);
    addLabResult(run.labsDir, '06-fake', [
      { id: 'serial-equals-pool', name: 'x', ok: false, observed: '8 rows, 8 equal scores in the same order' },
      { id: 'lost-worker-fails-batch', name: 'y', ok: true, observed: '0 scores returned' },
    ]);
    expect(gradeDecisionRecord(record, run).evidence).toEqual([
      expect.stringContaining('check [serial-equals-pool] failed in your run'),
    ]);
  });

  it('When the cited lab did not pass in .earlier-labs.json, Then none of its values count', () => {
    const record = parseDecisionRecord(reference);
    const run = runBacking(record);
    addEarlierLabs(
      run.labDir,
      ['01', '02', '03', '05', '06'].map((n) => ({ lab: `${n}-fake`, status: n === '05' ? 'failed' : 'passed' })),
    );
    expect(gradeDecisionRecord(record, run).evidence).toEqual([
      'blocking-call: lab 05-fake did not pass in your run (failed)',
    ]);
  });

  it('When there is no .earlier-labs.json, Then the grade asks for a run first', () => {
    const labsDir = makeLabsDir();
    expect(gradeDecisionRecord(parseDecisionRecord(reference), { labsDir, labDir: labsDir }).evidence).toEqual([
      'no .earlier-labs.json yet: run `pnpm earlier` (or `pnpm verify`), then cite values from that run',
    ]);
  });

  it("When no check has the cited id, Then the lab's check ids are listed [test:renamed-check-lists-ids]", () => {
    const result = grade(edited('| 02 | queue-bounded |', '| 02 | queue-stays-bounded |'));
    expect(result.evidence).toEqual([
      'io-wait: lab 02-fake has no check [queue-stays-bounded]; its checks are reads-at-once-limited, queue-bounded',
    ]);
  });

  it('When the result file was written before checks had ids, Then it asks for a fresh verify', () => {
    const record = parseDecisionRecord(reference);
    const run = runBacking(record);
    addLabResult(run.labsDir, '03-fake', [{ name: 'old', ok: true, observed: 'GET old id after restart -> 404' }]);
    expect(gradeDecisionRecord(record, run).evidence).toEqual([
      "durable: lab 03-fake's .lab-result.json predates check ids (run its verify again)",
    ]);
  });

  it('When a result file is not a verify result, Then the problem names the file', () => {
    const record = parseDecisionRecord(reference);
    const run = runBacking(record);
    mkdirSync(join(run.labsDir, '01-fake'), { recursive: true });
    writeFileSync(join(run.labsDir, '01-fake', '.lab-result.json'), '{"results": "none"}');
    expect(gradeDecisionRecord(record, run).evidence).toEqual([
      expect.stringMatching(/^durable: .*01-fake\/\.lab-result\.json is not a verify result/),
    ]);
  });

  it('When a value is cited from a lab that did not measure that kind, Then the record names the labs that did', () => {
    const result = grade(edited('| io-wait | 02 | queue-bounded |', '| io-wait | 01 | restart-forgets-jobs |'));
    expect(result.evidence).toEqual(['io-wait: lab 01 did not measure this kind of work (cite lab 02)']);
  });
});

describe('gradeDecisionRecord: placements', () => {
  it('When durable work is delivered directly, Then the record fails: only a queue outlives the API [test:durable-needs-task-queue]', () => {
    const result = grade(edited('| separate-process | task-queue |', '| separate-process | direct |'));
    expect(result.placement).toEqual([`durable: delivery is task-queue, not direct: ${KIND_RULES.durable.because}`]);
  });

  it('When CPU-bound work is placed on the event loop, Then it fails; on a worker thread it passes (Node threads run in parallel)', () => {
    const onLoop = grade(
      edited(
        '| score the text of a large batch of products | separate-process |',
        '| score the text of a large batch of products | event-loop |',
      ),
    );
    expect(onLoop.placement).toEqual([
      expect.stringMatching(/^cpu-bound: runs on separate-process or worker-thread, not event-loop/),
    ]);
    const onThread = grade(
      edited(
        '| score the text of a large batch of products | separate-process |',
        '| score the text of a large batch of products | worker-thread |',
      ),
    );
    expect(onThread.placement).toEqual([]);
  });

  it('When a kind is placed twice or a value is not an executor, Then the record says so', () => {
    const twice = grade(
      reference.replace('| durable | finish', '| io-wait | x | event-loop | direct | y |\n| durable | finish'),
    );
    expect(twice.placement).toEqual(['io-wait: placed 2 times (expected once)']);
    const wrong = grade(edited('| event-loop | direct |', '| coroutine | direct |'));
    expect(wrong.placement).toEqual([
      'io-wait: "coroutine" is not an executor (event-loop, worker-thread, separate-process)',
    ]);
  });
});

describe('gradeDecisionRecord: the task queue runtime', () => {
  const runtimeLine = (field: string) => {
    const line = reference.split('\n').find((l) => l.startsWith(`- ${field}:`));
    if (!line) throw new Error(`the reference has no "- ${field}:" line`);
    return line;
  };

  it('When the record claims exactly-once delivery, Then it fails: design for at least once [test:exactly-once-refused]', () => {
    const result = grade(edited(runtimeLine('delivery'), '- delivery: exactly once, BullMQ guarantees it'));
    expect(result.queue).toEqual([
      expect.stringMatching(/^delivery: "exactly once, BullMQ guarantees it" \(a queue delivers at least once/),
    ]);
  });

  it("When the result cache is written down as the job's lasting record, Then it fails: results expire, ask the database [test:result-cache-not-job-life]", () => {
    const result = grade(
      edited(runtimeLine('result cache'), '- result cache: the job history; a job without a result never ran'),
    );
    expect(result.queue).toEqual([
      expect.stringContaining('cached results expire; an expired result does not mean the job never existed'),
    ]);
  });

  it('When the worker line names no platform or claims native Windows, Then it fails [test:worker-platform-required]', () => {
    expect(grade(edited(runtimeLine('worker'), '- worker: a BullMQ worker in its own process')).queue).toEqual([
      expect.stringContaining('on Linux or WSL2'),
    ]);
    expect(grade(edited(runtimeLine('worker'), '- worker: a BullMQ worker process on native Windows')).queue).toEqual([
      expect.stringContaining('on Linux or WSL2'),
    ]);
  });

  it('When the source of truth is the queue itself, Then it fails: the job table in MySQL or MariaDB is', () => {
    expect(
      grade(edited(runtimeLine('source of truth'), '- source of truth: the BullMQ job hash in Redis')).queue,
    ).toEqual([expect.stringContaining('is the source of truth')]);
  });
});
