// The terminal-state check (src/terminal-check.ts) and `pnpm terminal` (scripts/check-terminal.ts,
// run in-process) on a fresh database and a scratch folder: values not text, the path contained,
// the other states, and the command's exit codes. Jobs are exported by lesson 15's real delivery.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '@tasks-lab/lab-kit';
import { artifactName } from '@tasks-lab/11-mysql-leases';
import { finishAndLeave } from '@tasks-lab/13-admission';
import {
  claimOrWait,
  deliverInChunks,
  recoverBatch,
  recoveryFaults,
  writeArtifactInChunks,
} from '@tasks-lab/15-recovery';
import { oneValueChanged, reserialised } from '../scripts/monitoring-scenarios.ts';
import { terminalCommand } from '../scripts/check-terminal.ts';
import { freshDatabase, openJobsDatabase, type FreshDatabase } from '../src/database.ts';
import { verifyTerminal } from '../src/terminal-check.ts';
import { admitTraced } from '../src/trace-context.ts';

let db: FreshDatabase;
let root: string;
let artifactsDir: string;
let outsideDir: string;

beforeAll(async () => {
  db = await freshDatabase('terminal');
  root = await mkdtemp(join(tmpdir(), 'tasks-lab16-terminal-'));
  artifactsDir = join(root, 'artifacts');
  outsideDir = join(root, 'outside');
  await mkdir(artifactsDir);
  await mkdir(outsideDir);
});
afterAll(async () => {
  await db?.drop();
  if (root) await rm(root, { recursive: true, force: true });
});

/** A failed job made to name a file (a bug the check must catch). Parameters: [resultRef, jobId]. */
const POINT_AT_A_FILE = `UPDATE export_jobs SET result_ref = ? WHERE id = ?`;

const submit = async (ids = [1, 2, 3], deadlineMs?: number) => (await admitTraced(db.pool, ids, { deadlineMs })).jobId;

/** A job exported for real (claim, chunks, finish); returns its id and its file's path. */
async function exportedJob(ids?: number[]): Promise<{ jobId: string; path: string }> {
  const jobId = await submit(ids);
  const outcome = await deliverInChunks(
    { job_id: jobId },
    { pool: db.pool, leaseMs: 30_000, maxAttempts: 3, artifactsDir, chunkRows: 2, faults: recoveryFaults({}) },
  );
  expect(outcome.published).toBe(true);
  const verdict = await verifyTerminal(db.pool, jobId, artifactsDir);
  return { jobId, path: verdict.artifactPath! };
}

/** A succeeded job whose result_ref is `resultRefOf(fileName)`; the correct file is written in `dir` (and linked from the folder with `link`). */
async function succeededWithRef(dir: string, resultRefOf: (fileName: string) => string, link = false): Promise<string> {
  const jobId = await submit([1, 2]);
  const attempt = await claimOrWait(db.pool, jobId, { leaseMs: 30_000, maxAttempts: 3 });
  if (attempt.outcome !== 'claimed') throw new Error('no claim');
  const fileName = artifactName(jobId, attempt.job.token);
  await writeArtifactInChunks(dir, fileName, attempt.job.snapshot, { chunkRows: 2, canContinue: async () => true });
  if (link) await symlink(join(dir, fileName), join(artifactsDir, fileName));
  expect(await finishAndLeave(db.pool, jobId, attempt.job.token, resultRefOf(fileName))).toBe(true);
  return jobId;
}

describe('verifyTerminal', () => {
  it('When the artifact is rewritten with other key order and indent, Then it is still verified; a changed value, a missing row, an extra key or bad JSON is a mismatch [test:terminal-compares-values]', async () => {
    const { jobId, path } = await exportedJob();
    const original = await readFile(path, 'utf8');
    const first = await verifyTerminal(db.pool, jobId, artifactsDir);
    expect(first).toMatchObject({
      jobId,
      status: 'succeeded',
      attempts: 1,
      verdict: 'artifact-verified',
      problems: [],
    });
    expect(first.artifactSha256).toMatch(/^[0-9a-f]{64}$/);

    await writeFile(path, reserialised(original));
    const rewritten = await verifyTerminal(db.pool, jobId, artifactsDir);
    expect(rewritten.verdict).toBe('artifact-verified');
    expect(rewritten.artifactSha256).not.toBe(first.artifactSha256);

    const rows = JSON.parse(original) as Record<string, unknown>[];
    const cases: [string, string, RegExp][] = [
      ['one price changed', oneValueChanged(original), /row 0 \(product 1\): "price_cents" differs/],
      ['a row missing', JSON.stringify(rows.slice(1)), /holds 2 rows, the snapshot 3/],
      [
        'an extra key',
        JSON.stringify(rows.map((row, i) => (i === 2 ? { ...row, discount: 0 } : row))),
        /row 2 \(product 3\): "discount" differs/,
      ],
      ['not JSON', original.slice(0, -5), /not valid JSON/],
    ];
    for (const [what, text, problem] of cases) {
      await writeFile(path, text);
      const verdict = await verifyTerminal(db.pool, jobId, artifactsDir);
      expect(verdict.verdict, what).toBe('mismatch');
      expect(verdict.problems.join('; '), what).toMatch(problem);
      // Problems name rows and keys, never a product's text.
      expect(verdict.problems.join('; '), what).not.toMatch(/Desk lamp|Adjustable/);
    }
    await writeFile(path, original);
  });

  it('When result_ref leads out of the artifacts folder (../, an absolute path, a symlink), Then it is a problem and the file is not trusted [test:terminal-path-contained]', async () => {
    const dotdot = await succeededWithRef(outsideDir, (name) => `../outside/${name}`);
    const absolute = await succeededWithRef(outsideDir, (name) => join(outsideDir, name));
    const linked = await succeededWithRef(outsideDir, (name) => name, true);
    for (const jobId of [dotdot, absolute, linked]) {
      const verdict = await verifyTerminal(db.pool, jobId, artifactsDir);
      expect(verdict.verdict).toBe('mismatch');
      expect(verdict.problems.join('; ')).toMatch(/outside the artifacts folder/);
      expect(verdict.artifactSha256).toBeUndefined();
    }
    // A symlink that stays inside the folder is fine: its real path is inside.
    const { jobId, path } = await exportedJob([1]);
    await rename(path, `${path}.real`);
    await symlink(`${path}.real`, path);
    expect((await verifyTerminal(db.pool, jobId, artifactsDir)).verdict).toBe('artifact-verified');
  });

  it("When a succeeded job's file is gone, Then it is a mismatch saying so [test:terminal-missing-file]", async () => {
    const { jobId, path } = await exportedJob([2]);
    await unlink(path);
    const verdict = await verifyTerminal(db.pool, jobId, artifactsDir);
    expect(verdict).toMatchObject({ verdict: 'mismatch', status: 'succeeded' });
    expect(verdict.problems.join()).toMatch(/does not exist/);
  });

  it('When the job is queued, unknown, failed, or failed with a result_ref, Then not-terminal, missing, terminal-without-artifact, mismatch [test:terminal-other-states]', async () => {
    const queued = await submit();
    expect((await verifyTerminal(db.pool, queued, artifactsDir)).verdict).toBe('not-terminal');
    expect(await verifyTerminal(db.pool, randomUUID(), artifactsDir)).toMatchObject({
      verdict: 'missing',
      status: null,
      attempts: null,
    });
    const failed = await submit([1], 1);
    await sleep(5);
    await recoverBatch(db.pool, { batch: 50, retryBackoffMs: 500, unclaimedThresholdMs: 60_000, maxAttempts: 3 });
    expect(await verifyTerminal(db.pool, failed, artifactsDir)).toMatchObject({
      verdict: 'terminal-without-artifact',
      status: 'failed',
      problems: [],
    });
    await db.pool.query(POINT_AT_A_FILE, ['stale.json', failed]);
    const wrong = await verifyTerminal(db.pool, failed, artifactsDir);
    expect(wrong.verdict).toBe('mismatch');
    expect(wrong.problems.join()).toMatch(/failed, but result_ref names "stale.json"/);
  });
});

describe('pnpm terminal <job-id>', () => {
  const run = async (args: string[]) => {
    const lines: string[] = [];
    const code = await terminalCommand(args, {
      openPool: () => openJobsDatabase({ database: db.name }),
      artifactsDir,
      print: (line) => lines.push(line),
    });
    return { code, lines };
  };

  it('When the id is not a UUID or missing, Then one line and exit 2, before any connection [test:terminal-cli-bad-id]', async () => {
    for (const args of [['../../etc/passwd'], [], ['']]) {
      const { code, lines } = await run(args);
      expect(code).toBe(2);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/usage: pnpm terminal <job-id>/);
      expect(lines[0]).not.toMatch(/\bat .+:\d+:\d+/);
    }
  });

  it("When the job is verified (its id in upper case), failed, or mismatched, Then the course's lines and exit 0, 0, 1 [test:terminal-cli-verdicts]", async () => {
    const { jobId, path } = await exportedJob([3]);
    const verified = await run([jobId.toUpperCase()]);
    expect(verified.code).toBe(0);
    expect(verified.lines[0]).toBe('state succeeded attempts 1');
    expect(verified.lines[1]).toMatch(/^artifact verified: .* \(sha256 [0-9a-f]{64}\)$/);
    const original = await readFile(path, 'utf8');
    await writeFile(path, oneValueChanged(original));
    const mismatch = await run([jobId]);
    expect(mismatch.code).toBe(1);
    expect(mismatch.lines[1]).toMatch(/^problem: the artifact's value is not the snapshot/);
    await writeFile(path, original);
    const failed = await submit([1], 1);
    await sleep(5);
    await recoverBatch(db.pool, { batch: 50, retryBackoffMs: 500, unclaimedThresholdMs: 60_000, maxAttempts: 3 });
    expect(await run([failed])).toEqual({
      code: 0,
      lines: ['state failed attempts 0', 'terminal without published artifact'],
    });
    expect((await run([randomUUID()])).code).toBe(1);
  });
});
