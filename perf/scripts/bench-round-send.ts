// `pnpm bench:round-send` (from the root): two ways to send a publisher round's wake-ups to
// BullMQ, on the labs' own Redis, in one process, taking turns round by round:
//
//   each     one add per event, all of the round at once: lesson 12's publisher (sendWakeUp)
//   bulk     one addBulk for the round, the same jobs (a design measured, and not adopted)
//
// Reported per form: events sent per second, and the process's CPU (user + system) per event.
// Why the question: one addBulk is one write to the socket where ten adds are ten. Why the
// answer (docs/12-outbox.md, "Batches"): the ten adds of a round are already sent together on
// one connection, none waiting for another's answer, so the round waits for Redis once either
// way; and a write per job is small next to BullMQ's own work per job, which both forms do.
//
//   pnpm bench:round-send                     rounds of 10 events (OUTBOX_BATCH's default), 300 of each
import { randomUUID } from 'node:crypto';
import { ensureInfra } from '@tasks-lab/infra';
import { median, runMain } from '@tasks-lab/lab-kit';
import { brokerConnection, EXPORT_JOB_NAME, type ExportJobName, openQueue } from '@tasks-lab/08-broker-worker';
import {
  type DeliveryOutcome,
  parseWakeUp,
  WAKE_UP_JOB_OPTIONS,
  type WakeUpMessage,
  type WakeUpQueue,
} from '@tasks-lab/11-mysql-leases';
import { exportsAddress, sendWakeUp } from '@tasks-lab/12-outbox';

export const ROUND_SEND_FORMS = ['each', 'bulk'] as const;
export type RoundSendForm = (typeof ROUND_SEND_FORMS)[number];

export interface RoundSendResult {
  form: RoundSendForm;
  eventsPerSecond: number;
  cpuUsPerEvent: number;
}

/** The bulk form: the jobs sendWakeUp adds, one by one, in one addBulk (one MULTI). */
async function sendInOneAddBulk(queue: WakeUpQueue, events: readonly { eventId: string; jobId: string }[]) {
  await queue.addBulk(
    events.map((event) => ({
      name: EXPORT_JOB_NAME,
      data: parseWakeUp({ job_id: event.jobId }),
      opts: { ...WAKE_UP_JOB_OPTIONS, jobId: event.eventId },
    })),
  );
}

const events = (n: number) => Array.from({ length: n }, () => ({ eventId: randomUUID(), jobId: randomUUID() }));

/** `rounds` rounds of `size` events per form, the forms taking turns; the medians per form. */
export async function runRoundSendBench(options: { rounds: number; size: number }): Promise<RoundSendResult[]> {
  const queueName = `round-send-${randomUUID().slice(0, 8)}`;
  const queue = await openQueue<WakeUpMessage, DeliveryOutcome, ExportJobName>(exportsAddress(queueName), {
    connection: brokerConnection(),
  });
  const samples: Record<RoundSendForm, { ms: number; cpuUs: number }[]> = { each: [], bulk: [] };
  try {
    for (let round = 0; round < options.rounds; round += 1)
      for (const form of ROUND_SEND_FORMS) {
        const batch = events(options.size);
        const cpu = process.cpuUsage();
        const started = performance.now();
        if (form === 'each') await Promise.all(batch.map((event) => sendWakeUp(queue, event)));
        else await sendInOneAddBulk(queue, batch);
        const used = process.cpuUsage(cpu);
        samples[form].push({ ms: performance.now() - started, cpuUs: used.user + used.system });
      }
  } finally {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  }
  return ROUND_SEND_FORMS.map((form) => ({
    form,
    eventsPerSecond: (options.size * 1000) / median(samples[form].map((s) => s.ms)),
    cpuUsPerEvent: median(samples[form].map((s) => s.cpuUs)) / options.size,
  }));
}

async function main(): Promise<void> {
  await ensureInfra({ services: ['redis'], log: (line) => console.log(`[infra] ${line}`) });
  const size = 10;
  const results = await runRoundSendBench({ rounds: 300, size });
  const [each, bulk] = results as [RoundSendResult, RoundSendResult];
  for (const r of results)
    console.log(
      `${r.form === 'each' ? 'one add per event' : 'one addBulk per round'}: ${Math.round(r.eventsPerSecond)} events/s, ${Math.round(r.cpuUsPerEvent)} µs of CPU per event (rounds of ${size}, median of 300)`,
    );
  console.log(
    `addBulk against one add per event: ${(bulk.eventsPerSecond / each.eventsPerSecond).toFixed(2)}× the events per second, ${(bulk.cpuUsPerEvent / each.cpuUsPerEvent).toFixed(2)}× the CPU per event`,
  );
}

runMain(import.meta.url, main);
