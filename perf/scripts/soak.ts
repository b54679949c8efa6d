// `pnpm soak` (from the root): the durable pipeline under many faults at once, judged by the
// course's invariants. Each invariant prints one line with what it counted; then `N passed,
// N failed`; the exit code is non-zero if any failed.
//
//   pnpm soak                                  the manual profile: 10,000 jobs, ~100 faults (~7 min)
//   pnpm soak -- --profile ci                  500 jobs, ~10 faults (about 1.5 min; `pnpm test` runs it)
//   pnpm soak -- --profile ci --seed 1234      the same jobs and faults as that run (re-run a failure)
//   pnpm soak -- --jobs 2000                   another number of jobs (the profile's window grows with it)
//
// The run writes soak-results/soak-<profile>-<seed>-<time>.json: the seed, the fault timeline
// (planned and as it ran), the counts and every invariant's result; a failed run also writes
// every process's output beside it (soak-results/<same name>/<process>.log), for reading the
// failing job's phase lines.
//
// It needs the database and Redis server BINARIES (pnpm infra:up installs them or says how): it
// starts private instances, because it crashes and freezes them. Docker-only machines cannot run it.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findBinaries } from '@tasks-lab/infra';
import { defineCheck, formatSummary, runChecks, runMain, type CheckResult } from '@tasks-lab/lab-kit';
import { describeFault, planSoak, PROFILES, type SoakProfile } from './soak-plan.ts';
import { SOAK_CHECKS } from './soak-checks.ts';
import { runSoak, soakTimings, type SoakEvidence } from './soak-scenario.ts';

const RESULTS_DIR = fileURLToPath(new URL('../soak-results', import.meta.url));

export interface SoakArgs {
  profile: SoakProfile;
  seed: number;
}

/** --profile ci|manual, --seed N, --jobs N. Pure (the default seed comes in from outside). */
export function parseSoakArgs(argv: readonly string[], defaultSeed: number): SoakArgs {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at === -1 ? undefined : argv[at + 1];
  };
  const profileName = value('--profile') ?? 'manual';
  const base = PROFILES[profileName as SoakProfile['name']];
  if (!base) throw new Error(`--profile must be ci or manual, got "${profileName}"`);
  const seedText = value('--seed');
  const seed = seedText === undefined ? defaultSeed : Number(seedText);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new Error(`--seed must be a whole number from 0 to 4294967295, got "${seedText}"`);
  const jobsText = value('--jobs');
  if (jobsText === undefined) return { profile: base, seed };
  const jobs = Number(jobsText);
  if (!Number.isInteger(jobs) || jobs < 10 || jobs > 100_000)
    throw new Error(`--jobs must be a whole number from 10 to 100000, got "${jobsText}"`);
  // The same rate of submissions as the profile: more jobs, a longer window, more faults.
  return { profile: { ...base, jobs, submitWindowMs: Math.round((base.submitWindowMs * jobs) / base.jobs) }, seed };
}

/** The report: everything but the processes' output (that goes beside it, for a failed run). */
function reportOf(args: SoakArgs, evidence: SoakEvidence, results: CheckResult[]) {
  const { outputs: _outputs, ...rest } = evidence;
  return {
    ...rest,
    rerun: `pnpm soak -- --profile ${args.profile.name} --seed ${args.seed}${args.profile.jobs !== PROFILES[args.profile.name].jobs ? ` --jobs ${args.profile.jobs}` : ''}`,
    profile: args.profile,
    results: results.map(({ id, ok, observed }) => ({ id, ok, observed })),
  };
}

async function main(): Promise<number> {
  const args = parseSoakArgs(process.argv.slice(2), Math.floor(Math.random() * 0xffffffff));
  const missing = Object.entries(findBinaries()).filter(([name, path]) => name !== 'mysqlInstallDb' && !path);
  if (missing.length > 0)
    throw new Error(
      'the soak starts its own Redis and database from their binaries; run pnpm infra:up once (it installs them or says how)',
    );
  const plan = planSoak(args.seed, args.profile, soakTimings(args.profile).leaseMs);
  const { profile } = plan;
  console.log(
    `Soak, profile ${profile.name}, seed ${args.seed}: ${profile.jobs} jobs over ${profile.submitWindowMs / 1000} s (${profile.bulkPercent} % bulk, ${profile.cancelPercent} % cancelled, ${profile.shortDeadlinePercent} % with a 1 s deadline), ${plan.faults.length} faults, admission limit ${profile.admissionLimit}`,
  );
  console.log(`faults: ${plan.faults.map(describeFault).join('; ')}`);

  const started = Date.now();
  const evidence = await runSoak(plan, { log: (line) => console.log(line) });
  console.log('');
  // The lab kit's runner judges and prints them, one line each, as every verify does.
  const { results, passed, failed } = await runChecks(
    SOAK_CHECKS.map(({ id, name, judge }) => defineCheck({ id, name, scenario: () => evidence, judge })),
  );

  await mkdir(RESULTS_DIR, { recursive: true });
  const name = `soak-${profile.name}-${args.seed}-${new Date(started).toISOString().replace(/[:.]/g, '-')}`;
  const file = join(RESULTS_DIR, `${name}.json`);
  const report = reportOf(args, evidence, results);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  if (failed > 0) {
    const logs = join(RESULTS_DIR, name);
    await mkdir(logs, { recursive: true });
    for (const [component, text] of Object.entries(evidence.outputs))
      await writeFile(join(logs, `${component.replace(/[^a-z0-9]+/gi, '-')}.log`), text);
    console.log(`\nThe processes' output: ${logs}/`);
  }
  console.log(`\nReport: ${file}`);
  console.log(`Re-run exactly these jobs and faults: ${report.rerun}`);
  console.log(
    `${formatSummary({ passed, failed })} (soak of ${profile.jobs} jobs, ${(evidence.totalMs / 1000).toFixed(0)} s)`,
  );
  return failed === 0 ? 0 : 1;
}

runMain(import.meta.url, main);
