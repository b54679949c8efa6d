// Integration: a real pool of 2 worker processes, started once for the whole file.
import { isAlive } from '@tasks-lab/lab-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstProductIds } from '../src/compare.ts';
import { ProcessPool } from '../src/process-pool.ts';
import { exportRowsFor, scoreExportRow } from '../src/scoring.ts';

const ROUNDS = 200;
let pool: ProcessPool;

beforeAll(async () => {
  pool = await new ProcessPool({ size: 2 }).start();
});

afterAll(async () => {
  await pool?.close();
});

describe('ProcessPool batches', () => {
  it('When a batch is scored, Then the scores equal serial scoring in row order and both workers took part', async () => {
    const rows = exportRowsFor(firstProductIds(6));
    const { scores, workerPids } = await pool.scoreBatch(rows, { rounds: ROUNDS });

    expect(scores).toEqual(rows.map((row) => scoreExportRow(row, ROUNDS)));
    expect(workerPids.sort()).toEqual(pool.pids().sort());
  });

  it('When two batches are sent at once, Then each gets its own scores in its own order', async () => {
    const [odd, even] = [exportRowsFor([1, 3, 5, 7]), exportRowsFor([8, 6, 4, 2])];
    const [oddScores, evenScores] = await Promise.all([
      pool.scoreBatch(odd, { rounds: ROUNDS }),
      pool.scoreBatch(even, { rounds: ROUNDS }),
    ]);

    expect(oddScores.scores).toEqual(odd.map((row) => scoreExportRow(row, ROUNDS)));
    expect(evenScores.scores).toEqual(even.map((row) => scoreExportRow(row, ROUNDS)));
  });

  it('When five requests send batches at once, Then the one shared pool scores them all with its own processes and starts no more [test:requests-share-one-pool]', async () => {
    const before = pool.pids();

    const batches = await Promise.all(
      [1, 2, 3, 4, 5].map((n) => pool.scoreBatch(exportRowsFor([n, n + 10]), { rounds: ROUNDS })),
    );

    const used = new Set(batches.flatMap((batch) => batch.workerPids));
    expect([...used].every((pid) => before.includes(pid))).toBe(true);
    expect(pool.pids()).toEqual(before);
  });

  it('When batches follow each other, Then the same worker processes (not the parent) do the work [test:batches-reuse-workers]', async () => {
    const before = pool.pids();
    await pool.scoreBatch(exportRowsFor([1, 2]), { rounds: ROUNDS });
    await pool.scoreBatch(exportRowsFor([3, 4]), { rounds: ROUNDS });

    expect(pool.pids()).toEqual(before);
    expect(before).not.toContain(process.pid);
    expect(before.every(isAlive)).toBe(true);
  });

  it('When progress is reported, Then it counts up to the batch size', async () => {
    const seen: string[] = [];
    await pool.scoreBatch(exportRowsFor([1, 2, 3]), {
      rounds: ROUNDS,
      onProgress: (done, total) => seen.push(`${done}/${total}`),
    });
    expect(seen).toEqual(['1/3', '2/3', '3/3']);
  });

  it('When a batch is empty, Then it resolves with no scores and no worker', async () => {
    expect(await pool.scoreBatch([])).toEqual({ scores: [], workerPids: [] });
  });

  it('When rows go through the advanced channel, Then a BigInt and a Date arrive intact', async () => {
    const { payload } = await pool.echo({ total: 2n ** 70n, at: new Date(0) });
    expect(payload).toEqual({ total: 2n ** 70n, at: new Date(0) });
  });
});

describe('ProcessPool close', () => {
  it('When a pool is closed, Then its processes are gone and a new batch is refused [test:closed-pool-leaves-no-process]', async () => {
    const own = await new ProcessPool({ size: 2 }).start();
    const pids = own.pids();
    await own.close();

    expect(pids.some(isAlive)).toBe(false);
    await expect(own.scoreBatch(exportRowsFor([1]))).rejects.toThrow('the process pool is closed');
  });
});
