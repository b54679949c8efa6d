// Every lesson's walk, for `pnpm test`: each in its own process (`pnpm lab NN --walk`, as a student
// runs it), in two lanes at once. The lessons whose docs talk to a port (the API on 8000) take turns
// in one lane, since they would meet each other's server; the others walk in the second lane, with
// anything else that needs no port (the exercise checks) after them. A walk's output is printed
// whole when it ends, so two walks never mix their lines.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Tally } from '../closing.ts';
import { failedWalkSteps } from '../closing.ts';
import { findLab, REPO_ROOT, type Lab } from '../labs.ts';
import { LESSONS } from '../lessons.ts';
import { docPorts, walkResultPath } from './index.ts';
import type { WalkReport } from './walk.ts';

export interface WalksOutcome {
  tally: Tally & { notWalked: number };
  /** Everything the walks printed (the caller looks for leaked passwords in it). */
  output: string;
  failures: string[];
  /** "01 16 s", one per lesson, in lesson order. */
  times: string[];
}

/** Runs a command to its end and keeps what it printed, without echoing it. */
function runCaptured(command: string, args: string[]): Promise<{ status: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => (output += chunk.toString('utf8'));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('close', (code) => resolve({ status: code ?? 1, output }));
  });
}

function readReport(lab: Lab): (WalkReport & { finishedAt: string }) | undefined {
  try {
    return JSON.parse(readFileSync(walkResultPath(lab), 'utf8')) as WalkReport & { finishedAt: string };
  } catch {
    return undefined;
  }
}

/**
 * Walks all lessons; `alongside` runs in the lane without ports once its walks are done. A walk
 * that reported nothing counts as one failure.
 */
export async function walkAllLessons(
  print: (text: string) => void,
  alongside: () => Promise<void> = async () => {},
): Promise<WalksOutcome> {
  const labs = LESSONS.map((lesson) => findLab(lesson)).filter((lab): lab is Lab => lab !== undefined);
  const withPorts = labs.filter((lab) => docPorts(lab).length > 0);
  const withoutPorts = labs.filter((lab) => !withPorts.includes(lab));
  const reports = new Map<string, { status: number; report?: WalkReport; output: string }>();

  const walkLane = async (lane: Lab[]) => {
    for (const lab of lane) {
      const since = Date.now();
      const run = await runCaptured(process.execPath, [
        '--import',
        'tsx',
        'shared/runner/src/cli.ts',
        lab.lesson.number,
        '--walk',
      ]);
      const report = readReport(lab);
      reports.set(lab.lesson.number, {
        ...run,
        report: report && Date.parse(report.finishedAt) >= since ? report : undefined,
      });
      print(`\n── walk ${lab.lesson.number} ──\n${run.output.trimEnd()}\n`);
    }
  };
  await Promise.all([walkLane(withPorts), walkLane(withoutPorts).then(alongside)]);

  const outcome: WalksOutcome = { tally: { passed: 0, failed: 0, notWalked: 0 }, output: '', failures: [], times: [] };
  for (const lab of labs) {
    const run = reports.get(lab.lesson.number)!;
    outcome.output += run.output;
    if (!run.report) {
      outcome.tally.failed++;
      outcome.failures.push(`walk ${lab.lesson.number}: it stopped before reporting (exit code ${run.status})`);
      continue;
    }
    outcome.tally.passed += run.report.passed;
    outcome.tally.failed += run.report.failed;
    outcome.tally.notWalked += run.report.notWalked;
    outcome.failures.push(...failedWalkSteps(lab.lesson.number, run.report));
    outcome.times.push(`${lab.lesson.number} ${(run.report.ms / 1000).toFixed(0)} s`);
  }
  return outcome;
}
