// Builds a throwaway labs/ folder for tests: each fake lab has a real scripts/verify.ts
// (run as a real child process) and, where asked, a .lab-result.json.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedCheck } from '../src/evidence.ts';

export function makeLabsDir(): string {
  return mkdtempSync(join(tmpdir(), 'lab07-labs-'));
}

/** A lab whose verify script runs `body` (TypeScript source). */
export function addFakeLab(labsDir: string, lab: string, body: string): void {
  mkdirSync(join(labsDir, lab, 'scripts'), { recursive: true });
  writeFileSync(join(labsDir, lab, 'scripts', 'verify.ts'), body);
}

export const verifyPrinting = (passed: number, failed: number): string =>
  `console.log('Lesson xx: fake');\nconsole.log('${passed} passed, ${failed} failed');\nprocess.exitCode = ${failed > 0 ? 1 : 0};\n`;

export function addLabResult(labsDir: string, lab: string, results: RecordedCheck[]): void {
  mkdirSync(join(labsDir, lab), { recursive: true });
  const file = { lesson: lab.slice(0, 2), finishedAt: new Date().toISOString(), results };
  writeFileSync(join(labsDir, lab, '.lab-result.json'), JSON.stringify(file));
}
