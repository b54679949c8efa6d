// The commands a lesson doc gives for the database, on the real services: `pnpm lab sql NN -e`,
// `pnpm lab products NN COUNT` and `pnpm lab NN --reset`. Lesson "97" stands in for a lab, with a
// database and a key prefix of its own, so nothing a student or another test uses is touched.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countLeakedSecrets, dropLabDatabase, ensureInfra, redisOptions } from '@tasks-lab/infra';
import { addProducts } from '../src/lab-database.ts';
import { findLab, REPO_ROOT, type Lab } from '../src/labs.ts';
import { findLesson } from '../src/lessons.ts';
import { resetLab, resetPlan } from '../src/reset.ts';

const dir = mkdtempSync(join(tmpdir(), 'lab97-'));
/** Lesson 11's migrations (its products table), applied to the stand-in's database. */
const lab11 = findLab(findLesson('11')!)!;
const lab97: Lab = {
  lesson: { number: '97', slug: 'stand-in', title: 'a stand-in lab' },
  dir,
  packageName: '@tasks-lab/97-stand-in',
  doc: 'docs/97.md',
  needs: ['redis', 'mysql'],
};

beforeAll(async () => {
  await ensureInfra();
}, 120_000);
afterAll(async () => {
  await dropLabDatabase('97');
  rmSync(dir, { recursive: true, force: true });
});

describe('pnpm lab sql', () => {
  it("When a statement is given with -e, Then it runs on the lab's database and prints a table, with no password in the output", () => {
    const run = spawnSync('pnpm', ['--silent', 'lab', 'sql', '11', '-e', 'SELECT 1 + 1 AS two, DATABASE() AS db'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/\| two \| db\s+\|\n\+-+\+-+\+\n\|\s+2 \| tasks_lab11 \|/);
    expect(countLeakedSecrets(`${run.stdout}${run.stderr}`)).toBe(0);
  });

  it('When the lesson has no database, Then it says where that lesson keeps its jobs, and exits 1', () => {
    const run = spawnSync('pnpm', ['--silent', 'lab', 'sql', '08'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/Lesson 08 has no database: it keeps job state in Redis/);
  });
});

describe('pnpm lab products', () => {
  it('When products are asked for, Then products 1 to COUNT exist, and asking again adds none', {
    timeout: 120_000,
  }, async () => {
    expect(await addProducts(lab11, 8, 'tasks_lab97')).toBe('products 1 to 8 exist in tasks_lab97: 3 added, 8 in all');
    expect(await addProducts(lab11, 8, 'tasks_lab97')).toBe('products 1 to 8 exist in tasks_lab97: 0 added, 8 in all');
  });
});

describe('pnpm lab NN --reset', () => {
  it('When there is no terminal to confirm and no --yes, Then nothing is removed and it says how to confirm', async () => {
    mkdirSync(join(dir, 'artifacts'), { recursive: true });
    writeFileSync(join(dir, 'artifacts', 'a.json'), '{}');
    const lines: string[] = [];
    expect(await resetLab(lab97, { yes: false, print: (l) => lines.push(l) })).toBe(1);
    expect(lines).toEqual(['Not reset: confirm with --yes (pnpm -w lab 97 --reset --yes).']);
    expect(existsSync(join(dir, 'artifacts', 'a.json'))).toBe(true);
  });

  it('When confirmed, Then the database, the keys under the prefix and the artifacts go, each said in one line', {
    timeout: 120_000,
  }, async () => {
    await addProducts(lab11, 5, 'tasks_lab97');
    const redis = new Redis(redisOptions());
    await redis.set('tasks-lab97:exports:meta', 'x');
    redis.disconnect();
    mkdirSync(join(dir, 'artifacts'), { recursive: true });
    writeFileSync(join(dir, 'artifacts', 'b.json'), '{}');
    expect(resetPlan(lab97)).toEqual([
      'the database tasks_lab97 (its tables, rows and migration records)',
      'every Redis key under tasks-lab97: (queues, jobs, schedules)',
      expect.stringMatching(/artifacts\/ \(2 files\)$/),
    ]);
    const lines: string[] = [];
    expect(await resetLab(lab97, { yes: true, print: (l) => lines.push(l) })).toBe(0);
    expect(lines[0]).toMatch(/^dropped the database tasks_lab97 \(tables: .*products.*schema_migrations.*\)$/);
    expect(lines[1]).toBe('deleted 1 Redis key under tasks-lab97:');
    expect(lines[2]).toMatch(/^removed .*artifacts\/ \(2 files\)$/);
    expect(existsSync(join(dir, 'artifacts'))).toBe(false);
  });

  it('When the lesson keeps nothing outside one process, Then there is nothing to reset', async () => {
    const lines: string[] = [];
    const lab01: Lab = {
      ...lab97,
      dir: mkdtempSync(join(tmpdir(), 'lab01-')),
      lesson: { number: '01', slug: 's', title: 't' },
      needs: [],
    };
    expect(await resetLab(lab01, { yes: false, print: (l) => lines.push(l) })).toBe(0);
    expect(lines[0]).toMatch(/nothing to reset/);
  });
});
