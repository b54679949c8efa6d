// Step 3: export 8 products through 2 threads and a queue of at most 4
// (POOL_THREADS and POOL_MAX_PENDING change them: src/options.ts).
import { runMain } from '@tasks-lab/lab-kit';
import { exportAll } from '../src/batch-export.ts';
import { BlockingIoPool } from '../src/io-pool.ts';
import { IO_POOL_OPTIONS } from '../src/options.ts';

async function main(): Promise<void> {
  const pool = new BlockingIoPool(IO_POOL_OPTIONS.read());
  await pool.ready();

  const outcomes = await exportAll(pool, [1, 2, 3, 4, 5, 6, 7, 8], { slices: 5 });
  console.log(
    `exported ${outcomes.length} products, in completion order: ${outcomes.map((o) => o.productId).join(', ')}`,
  );
  console.log(
    `most pending at once: ${pool.peakPending}; most reads at once (counted by the threads): ${pool.readGauge().peakInRead}`,
  );

  await pool.close();
}

runMain(import.meta.url, main);
