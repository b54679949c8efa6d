// Builds a throwaway labs/ folder for tests: each fake lab has a real scripts/verify.ts
// (run as a real child process) and, where asked, a .lab-result.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DecisionRecord } from '../src/decision-record.ts';
import { writeEarlierLabsRecord, type EarlierLabStatus } from '../src/earlier-labs.ts';
import type { RecordedCheck } from '../src/recorded-run.ts';
import { makeTempDir } from './temp-dirs.ts';

/** A throwaway labs/ folder, removed when the test file ends. */
export function makeLabsDir(): string {
  return makeTempDir('labs');
}

/** A lab whose verify script runs `body` (TypeScript source, an ES module like every lab's). */
export function addFakeLab(labsDir: string, lab: string, body: string): void {
  mkdirSync(join(labsDir, lab, 'scripts'), { recursive: true });
  writeFileSync(
    join(labsDir, lab, 'package.json'),
    JSON.stringify({ name: `fake-${lab}`, private: true, type: 'module' }),
  );
  writeFileSync(join(labsDir, lab, 'scripts', 'verify.ts'), body);
}

const LAB_KIT = import.meta.resolve('@tasks-lab/lab-kit');

/**
 * A verify script built on lab-kit's real runVerify, so the output and the
 * .lab-result.json it writes have exactly the format labs 01-06 produce. Passing checks
 * get ids fine-1, fine-2 ...; failing ones fake-1, fake-2 ...
 */
export function fakeVerify(passed: number, failed: number): string {
  const checks = [
    ...Array.from(
      { length: passed },
      (_, i) => `{ id: 'fine-${i + 1}', name: 'check ${i + 1}', run: () => pass('ok') }`,
    ),
    ...Array.from(
      { length: failed },
      (_, i) => `{ id: 'fake-${i + 1}', name: 'broken check ${i + 1}', run: () => fail('not ok') }`,
    ),
  ];
  return [
    `import { fail, pass, runVerify } from ${JSON.stringify(LAB_KIT)};`,
    `await runVerify({ lesson: 'xx', title: 'fake', doc: 'none', checks: [${checks.join(', ')}] });`,
    '',
  ].join('\n');
}

/** A .lab-result.json as lab-kit's runVerify writes it (each result with its check id). */
export function addLabResult(labsDir: string, lab: string, results: RecordedCheck[], finishedAt = new Date()): void {
  mkdirSync(join(labsDir, lab), { recursive: true });
  const passed = results.filter((r) => r.ok).length;
  const file = {
    lesson: lab.slice(0, 2),
    finishedAt: finishedAt.toISOString(),
    results,
    passed,
    failed: results.length - passed,
  };
  writeFileSync(join(labsDir, lab, '.lab-result.json'), JSON.stringify(file));
}

/**
 * A verify (lab-kit's runVerify) whose one check writes its pid to `pid`, then waits
 * forever holding a resource; closing that resource writes `cleaned`. The files land
 * in the lab folder, the verify's working directory.
 */
export function hangingVerify(): string {
  return [
    `import { writeFileSync } from 'node:fs';`,
    `import { runVerify, withResources } from ${JSON.stringify(LAB_KIT)};`,
    `const hangs = (signal) => withResources(signal, (res) => new Promise((_, reject) => {`,
    `  const timer = setInterval(() => {}, 1000);`,
    `  res.defer(() => { clearInterval(timer); writeFileSync('cleaned', 'yes'); reject(new Error('closed')); });`,
    `  writeFileSync('pid', String(process.pid));`,
    `}));`,
    `await runVerify({ lesson: 'xx', title: 'hangs', doc: 'none', checks: [{ id: 'hangs', name: 'hangs', run: hangs }] });`,
    '',
  ].join('\n');
}

/** A .earlier-labs.json in `labDir` saying how each lab did in the run. */
export function addEarlierLabs(labDir: string, labs: Array<{ lab: string; status: EarlierLabStatus }>): void {
  writeEarlierLabsRecord(labDir, {
    ranAt: new Date().toISOString(),
    totalMs: 1000,
    labs: labs.map(({ lab, status }) => ({
      lab,
      status,
      passed: status === 'passed' ? 1 : 0,
      failed: status === 'passed' ? 0 : 1,
      exitCode: status === 'passed' ? 0 : 1,
      ms: 100,
      summary: status === 'passed' ? '1 passed, 0 failed' : '0 passed, 1 failed',
      failedChecks: [],
    })),
  });
}

export interface FakeRun {
  /** The labs folder; .earlier-labs.json is written into it too, so it doubles as labDir. */
  labsDir: string;
  labDir: string;
}

/**
 * A recorded run in which every check the record cites passed and observed its value
 * (inside a longer sentence, as real checks do): lab "02" becomes the folder "02-fake".
 * `observedFor` may change what one check observed.
 */
export function runBacking(
  record: DecisionRecord,
  observedFor: (checkId: string, value: string) => string = (_, value) => value,
): FakeRun {
  const labsDir = makeLabsDir();
  const byLab = new Map<string, RecordedCheck[]>();
  for (const row of record.evidence) {
    const lab = `${row.lab.slice(0, 2)}-fake`;
    const checks = byLab.get(lab) ?? [];
    checks.push({
      id: row.checkId,
      name: `the check ${row.checkId}`,
      ok: true,
      observed: `before, ${observedFor(row.checkId, row.value)}, after`,
    });
    byLab.set(lab, checks);
  }
  for (const [lab, checks] of byLab) addLabResult(labsDir, lab, checks);
  addEarlierLabs(
    labsDir,
    [...byLab.keys()].map((lab) => ({ lab, status: 'passed' })),
  );
  return { labsDir, labDir: labsDir };
}
