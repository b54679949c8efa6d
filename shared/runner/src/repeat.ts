// `pnpm lab NN --repeat 10`: a check that passes wrong code only some of the time
// is worse than one that always fails. Given several verify runs, find every
// check whose outcome was not the same in all of them.
import type { CheckReport } from '@tasks-lab/lab-kit';

export interface CheckStability {
  /** The check's stable id: runs are matched by id, so a reworded check is still the same check. */
  id: string;
  name: string;
  passes: number;
  failures: number;
  /** One observation from a failing run, to show what went wrong. */
  failedObservation?: string;
}

export interface RepeatSummary {
  runs: number;
  stablePassing: CheckStability[];
  stableFailing: CheckStability[];
  varying: CheckStability[];
}

export function summariseRuns(reports: CheckReport[]): RepeatSummary {
  const byId = new Map<string, CheckStability>();
  for (const report of reports) {
    for (const result of report.results) {
      const entry = byId.get(result.id) ?? { id: result.id, name: result.name, passes: 0, failures: 0 };
      if (result.ok) entry.passes += 1;
      else {
        entry.failures += 1;
        entry.failedObservation ??= result.observed;
      }
      byId.set(result.id, entry);
    }
  }
  const runs = reports.length;
  const all = [...byId.values()];
  return {
    runs,
    // A check missing from some runs (the verify crashed before it) also varies.
    stablePassing: all.filter((c) => c.passes === runs),
    stableFailing: all.filter((c) => c.failures === runs),
    varying: all.filter((c) => c.passes !== runs && c.failures !== runs),
  };
}

/** The `rerun:` lines a verify printed under its failed checks, by check id (the command, with the run's settings). */
export function rerunCommands(output: string): Map<string, string> {
  const commands = new Map<string, string>();
  for (const match of output.matchAll(/^ {4}rerun: (.* --only (\S+))$/gm)) commands.set(match[2]!, match[1]!);
  return commands;
}

/** One line per check, the varying first; under a varying or failing check, the command that reruns it (from `reruns`). */
export function formatRepeat(summary: RepeatSummary, reruns: ReadonlyMap<string, string> = new Map()): string[] {
  const lines: string[] = [];
  const rerun = (id: string) => {
    const command = reruns.get(id);
    if (command) lines.push(`    rerun: ${command} (add --repeat ${summary.runs} to repeat it alone)`);
  };
  for (const check of summary.varying) {
    lines.push(
      `~ VARIES  ${check.name} [${check.id}] — passed ${check.passes}/${summary.runs}, failed ${check.failures}/${summary.runs}` +
        (check.failedObservation ? `; a failing run observed: ${check.failedObservation}` : ''),
    );
    rerun(check.id);
  }
  for (const check of summary.stableFailing) {
    lines.push(
      `✗ FAIL    ${check.name} [${check.id}] — failed in all ${summary.runs} runs; observed: ${check.failedObservation}`,
    );
    rerun(check.id);
  }
  for (const check of summary.stablePassing) {
    lines.push(`✓ stable  ${check.name} [${check.id}] — passed in all ${summary.runs} runs`);
  }
  return lines;
}
