// `pnpm terminal <job-id>`: the course's verify_terminal.py for one real job of lab 16's
// database (tasks_lab16) and artifacts folder (src/terminal-check.ts does the checking).
//
//   pnpm terminal 6f1c…                  state succeeded attempts 1 / artifact verified: <path> (sha256 …)
//   pnpm terminal <a failed job's id>    state failed attempts 3 / terminal without published artifact
//   pnpm terminal not-a-uuid             a one-line message, exit 2 (never a stack)
//
// Exit codes: 0 verified, terminal without an artifact, or not terminal yet; 1 a problem (the
// lines say which) or no such job; 2 a bad id. The id is made canonical first (lesson 01's
// parseJobId, then lower case, as the API does), so an upper-case id finds its job.
import type { Pool } from 'mysql2/promise';
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { runMain } from '@tasks-lab/lab-kit';
import { AppError, parseJobId } from '@tasks-lab/01-state-machine';
import { openJobsDatabase } from '../src/database.ts';
import { LAB, SERVER_PROCESS_OPTIONS } from '../src/options.ts';
import { describeVerdict, verifyTerminal } from '../src/terminal-check.ts';

export const USAGE = 'usage: pnpm terminal <job-id>   (the job id is a UUID)';

/** The canonical id, or the one-line reason it is not one. */
export function canonicalJobId(raw: string | undefined): { jobId: string } | { error: string } {
  if (raw === undefined || raw === '') return { error: USAGE };
  try {
    return { jobId: parseJobId(raw).toLowerCase() };
  } catch (err) {
    if (err instanceof AppError) return { error: `${err.message}. ${USAGE}` };
    throw err;
  }
}

export interface TerminalCommandDeps {
  /** Opens the pool the job is read with (closed by the command). */
  openPool: () => Promise<Pool>;
  artifactsDir: string;
  print: (line: string) => void;
}

/** The command without the process around it (the test runs it in-process): returns the exit code. */
export async function terminalCommand(args: readonly string[], deps: TerminalCommandDeps): Promise<number> {
  const id = canonicalJobId(args[0]);
  if ('error' in id) {
    deps.print(id.error);
    return 2;
  }
  const pool = await deps.openPool();
  try {
    const verdict = await verifyTerminal(pool, id.jobId, deps.artifactsDir);
    for (const line of describeVerdict(verdict)) deps.print(line);
    return verdict.verdict === 'mismatch' || verdict.verdict === 'missing' ? 1 : 0;
  } finally {
    await pool.end();
  }
}

async function main(): Promise<number> {
  const settings = SERVER_PROCESS_OPTIONS.read();
  // The id first: a typo gets its answer without waiting for the infrastructure.
  const args = process.argv.slice(2);
  if ('error' in canonicalJobId(args[0]))
    return terminalCommand(args, {
      openPool: () => Promise.reject(new Error('unreachable')),
      artifactsDir: settings.artifactsDir,
      print: console.log,
    });
  await ensureInfra({ services: ['mysql'], log: (line) => console.log(`[infra] ${line}`) });
  await migrateLab(LAB, { database: settings.database });
  return terminalCommand(args, {
    openPool: () => openJobsDatabase({ database: settings.database }),
    artifactsDir: settings.artifactsDir,
    print: console.log,
  });
}

runMain(import.meta.url, main);
