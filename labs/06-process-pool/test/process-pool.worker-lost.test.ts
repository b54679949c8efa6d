// Integration: worker processes really die here (SIGKILL), and the pool must say so.
import { faultRule, isAlive, waitFor } from '@tasks-lab/lab-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { firstProductIds } from '../src/compare.ts';
import { ProcessPool, RowFailedError, WorkerProcessLostError } from '../src/process-pool.ts';
import { exportRowsFor, scoreExportRow } from '../src/scoring.ts';

const pools: ProcessPool[] = [];
async function startPool(options: ConstructorParameters<typeof ProcessPool>[0] = {}) {
  const pool = new ProcessPool({ size: 2, ...options });
  pools.push(pool);
  return pool.start();
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

describe('ProcessPool when a worker process dies', () => {
  it('When a worker is SIGKILLed mid-batch, Then the batch rejects naming the pid and signal, with no scores', async () => {
    const pool = await startPool();
    const victim = pool.pids()[0]!;
    let doneAtKill = -1;
    const batch = pool.scoreBatch(exportRowsFor(firstProductIds(12)), {
      onProgress: (done) => {
        if (doneAtKill >= 0) return;
        doneAtKill = done;
        process.kill(victim, 'SIGKILL');
      },
    });

    const error = await batch.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(WorkerProcessLostError);
    expect((error as Error).message).toBe(`worker process ${victim} exited (SIGKILL) during batch`);
    expect(doneAtKill).toBeLessThan(12);
  });

  it('When a worker was lost, Then a new process replaces it and the next batch equals serial scoring [test:lost-worker-replaced-by-new-process]', async () => {
    const pool = await startPool();
    const [victim, survivor] = pool.pids() as [number, number];
    const batch = pool.scoreBatch(exportRowsFor(firstProductIds(8)), {
      onProgress: () => process.kill(victim, 'SIGKILL'),
    });
    await expect(batch).rejects.toThrow(WorkerProcessLostError);

    await pool.whenReady();
    expect(pool.pids()).toHaveLength(2);
    expect(pool.pids()).toContain(survivor);
    expect(pool.pids()).not.toContain(victim);
    await waitFor('the killed worker to be gone', () => !isAlive(victim));

    const rows = exportRowsFor([1, 2, 3, 4]);
    const { scores } = await pool.scoreBatch(rows, { rounds: 100 });
    expect(scores).toEqual(rows.map((row) => scoreExportRow(row, 100)));
  });

  it('When an idle worker dies, Then no batch fails and the pool is whole again', async () => {
    const pool = await startPool();
    const victim = pool.pids()[1]!;
    process.kill(victim, 'SIGKILL');

    await waitFor('the pool to notice', () => !pool.pids().includes(victim));
    await pool.whenReady();
    expect(pool.pids()).toHaveLength(2);
    expect((await pool.scoreBatch(exportRowsFor([5]), { rounds: 10 })).scores).toHaveLength(1);
  });

  it("When the workers cannot load their scorer, Then start() rejects with the worker's reason and no worker is left running [test:start-fails-with-worker-reason]", async () => {
    const pool = new ProcessPool({ size: 2, scorerUrl: new URL('./fixtures/missing-scorer.ts', import.meta.url).href });
    pools.push(pool);
    const pids = pool.pids();

    await expect(pool.start()).rejects.toThrow(
      /worker process \d+ exited \(code 1\) before it was ready: Cannot find module '.*missing-scorer\.ts'/,
    );
    expect(pids.some(isAlive)).toBe(false);
  });
});

describe('ProcessPool with a fault point in a worker (LAB_FAULTS)', () => {
  it('When the first worker crashes while scoring, Then the batch names it and SIGKILL, and its replacement runs clean', async () => {
    const pool = await startPool({ firstWorkerFaults: faultRule('while-scoring', 'crash') });
    const [faulty, other] = pool.pids() as [number, number];

    const error = await pool.scoreBatch(exportRowsFor(firstProductIds(6)), { rounds: 50 }).then(
      () => undefined,
      (err: unknown) => err,
    );

    expect(error).toBeInstanceOf(WorkerProcessLostError);
    expect(error).toMatchObject({ code: 'worker-lost', pid: faulty, exit: { signal: 'SIGKILL' } });
    await pool.whenReady();
    expect(pool.pids()).toContain(other);
    const rows = exportRowsFor(firstProductIds(6));
    const { scores } = await pool.scoreBatch(rows, { rounds: 50 });
    expect(scores).toEqual(rows.map((row) => scoreExportRow(row, 50)));
  });

  it('When the fault throws instead, Then the worker lives and the batch fails with that row named', async () => {
    const pool = await startPool({ size: 1, firstWorkerFaults: faultRule('while-scoring', 'throw') });
    const pid = pool.pids()[0];

    const batch = pool.scoreBatch(exportRowsFor([1, 2]), { rounds: 10 });

    await expect(batch).rejects.toThrow(RowFailedError);
    await expect(batch).rejects.toThrow(`row 0 failed in worker process ${pid}: fault injected at while-scoring`);
    expect(pool.pids()).toEqual([pid]);
  });

  it('When LAB_FAULTS names a point the worker does not have, Then start() fails naming it instead of injecting nothing [test:unknown-fault-point-refused]', async () => {
    const pool = new ProcessPool({ size: 1, firstWorkerFaults: faultRule('after-scoring', 'crash') });
    pools.push(pool);
    await expect(pool.start()).rejects.toThrow(
      /exited \(code 1\) before it was ready: LAB_FAULTS: unknown fault point "after-scoring"; this process has: while-scoring$/,
    );
  });
});
