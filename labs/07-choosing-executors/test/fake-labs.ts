// Builds a throwaway labs/ folder for tests: each fake lab has a real scripts/verify.ts
// (run as a real child process) and, where asked, a .lab-result.json.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedCheck } from '../src/evidence.ts';

export function makeLabsDir(): string {
  return mkdtempSync(join(tmpdir(), 'lab07-labs-'));
}

/** A lab whose verify script runs `body` (TypeScript source, an ES module like every lab's). */
export function addFakeLab(labsDir: string, lab: string, body: string): void {
  mkdirSync(join(labsDir, lab, 'scripts'), { recursive: true });
  writeFileSync(join(labsDir, lab, 'package.json'), JSON.stringify({ name: `fake-${lab}`, private: true, type: 'module' }));
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
    ...Array.from({ length: passed }, (_, i) => `{ id: 'fine-${i + 1}', name: 'check ${i + 1}', run: () => pass('ok') }`),
    ...Array.from({ length: failed }, (_, i) => `{ id: 'fake-${i + 1}', name: 'broken check ${i + 1}', run: () => fail('not ok') }`),
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
  const file = { lesson: lab.slice(0, 2), finishedAt: finishedAt.toISOString(), results, passed, failed: results.length - passed };
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
