// Step 3 of the lesson: one business export delivered twice under two different BullMQ
// job ids. Start `pnpm worker` in another terminal first.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { QueueEvents } from 'bullmq';
import { ensureInfra, labPrefix } from '@tasks-lab/infra';
import { sampleMessage } from '@tasks-lab/08-broker-worker';
import { bullConnection, openExportQueue } from '../src/queue.ts';
import { submitExport } from '../src/submit.ts';
import { sha256Hex } from '../src/artifact.ts';
import type { DeliveryResult } from '../src/export-worker.ts';

await ensureInfra({ services: ['redis'], log: (line) => console.log(line) });
const queueName = process.env.QUEUE_NAME ?? 'products-export';
const queue = openExportQueue(queueName);
const events = new QueueEvents(queueName, { connection: bullConnection(), prefix: labPrefix('09') });
try {
  await events.waitUntilReady();
  const message = sampleMessage(3);
  const first = await submitExport(queue, message, { bullJobId: randomUUID() });
  const second = await submitExport(queue, message, { bullJobId: randomUUID() });
  console.log(`business job ${message.job_id}: BullMQ jobs ${first.id} and ${second.id}`);
  const a = (await first.waitUntilFinished(events, 30_000)) as DeliveryResult;
  const b = (await second.waitUntilFinished(events, 30_000)) as DeliveryResult;
  for (const r of [a, b]) console.log(`BullMQ job ${r.bullJobId}: path ${r.path}, sha256 ${r.sha256.slice(0, 16)}…`);
  const onDisk = sha256Hex(await readFile(a.path));
  const same = a.path === b.path && a.sha256 === b.sha256 && onDisk === a.sha256;
  console.log(same ? 'same logical output: one path, one digest, and the file on disk matches it' : 'DIFFERENT outputs: the export is not idempotent');
  process.exitCode = same ? 0 : 1;
} finally {
  await events.close();
  await queue.close();
}
