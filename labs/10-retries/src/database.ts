// Lesson 10's database: its tables come from the shared migration runner, and each
// process has ONE pool, opened on first use and shared by every job it runs.
import type { Pool } from 'mysql2/promise';
import { migrateLab, openLabDatabase } from '@tasks-lab/infra';
import { idempotent } from '@tasks-lab/lab-kit';

/** Applies the chain of migrations up to lesson 10 (every lab's migrations/ folder), then opens a pool on tasks_lab10. */
export async function openInventoryDatabase(): Promise<Pool> {
  await migrateLab('10');
  return openLabDatabase('10');
}

export interface LazyPool {
  /** The pool; the first call opens it, every later call gets the same one. */
  get(): Promise<Pool>;
  /** Ends the pool if it was ever opened. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * The process's one pool. It stores the PROMISE of the pool, not the pool: the obvious
 * `pool ??= await open()` reads `pool` before the await and writes it after, so four
 * deduction jobs starting together (concurrency 4) all see "no pool yet" and open four
 * pools, three of which are never closed. The promise is stored at once, so the second
 * to fourth callers wait for the first opening. A failed opening is forgotten, so the
 * next job tries again instead of failing for ever.
 */
export function lazyPool(open: () => Promise<Pool> = openInventoryDatabase): LazyPool {
  let opening: Promise<Pool> | undefined;
  return {
    get() {
      opening ??= open().catch((err: unknown) => {
        opening = undefined;
        throw err;
      });
      return opening;
    },
    close: idempotent(async () => {
      const pool = await opening?.catch(() => undefined);
      await pool?.end();
    }),
  };
}
