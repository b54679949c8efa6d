// Step 3 of the lesson: one business export delivered twice under two different BullMQ
// job ids. Start `pnpm worker` in another terminal first (same EXPORTS_QUEUE).
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { runMain, withResources } from '@tasks-lab/lab-kit';
import { sampleMessage, type ExportMessage } from '@tasks-lab/07-choosing-executors';
import { openQueue, openQueueEvents, sha256, waitForResult, type ExportJobName } from '@tasks-lab/08-broker-worker';
import type { DeliveryResult } from '../src/export-worker.ts';
import { WORKER_OPTIONS } from '../src/options.ts';
import { exportsAddress } from '../src/queue.ts';
import { submitExport } from '../src/submit.ts';
import { ensureServices } from '../src/services.ts';
import { runByHand } from './scenarios.ts';

runMain(import.meta.url, async () => {
  await ensureServices(['redis']);
  const address = exportsAddress(WORKER_OPTIONS.read().queueName);
  return runByHand((signal) =>
    withResources(signal, async (res) => {
      const queue = res.add(await openQueue<ExportMessage, DeliveryResult, ExportJobName>(address), (q) => q.close());
      // Subscribed before adding, so a fast worker's "completed" cannot be missed.
      const events = res.add(await openQueueEvents<DeliveryResult>(address), (e) => e.close());
      const message = sampleMessage(3);
      const first = await submitExport(queue, message);
      const second = await submitExport(queue, message);
      console.log(`business job ${message.job_id}: BullMQ jobs ${first.id} and ${second.id}`);
      const a = await waitForResult(first, events, 30_000);
      const b = await waitForResult(second, events, 30_000);
      // The path as seen from where the command runs (the lab folder under pnpm), not this machine's absolute one.
      for (const r of [a, b])
        console.log(
          `BullMQ job ${r.bullJobId}: path ${relative(process.cwd(), r.path)}, sha256 ${r.sha256.slice(0, 16)}…`,
        );
      const onDisk = sha256(await readFile(a.path));
      const same = a.path === b.path && a.sha256 === b.sha256 && onDisk === a.sha256;
      console.log(
        same
          ? 'same logical output: one path, one digest, and the file on disk matches it'
          : 'DIFFERENT outputs: the export is not idempotent',
      );
      return same ? 0 : 1;
    }),
  );
});
