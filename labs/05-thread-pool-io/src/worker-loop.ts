// The body of a pool thread: take one read at a time from the pool, run it (blocking
// this thread, which is the point), report the outcome. Nothing else runs here.
import { parentPort, workerData } from 'node:worker_threads';
import { controlFrom, type ReadControl, type ReadOutcome, type ReadPlan } from './blocking-read.ts';
import { enterRead, leaveRead } from './read-gauge.ts';
import type { FromWorker, ToWorker, WorkerSetup } from './worker-protocol.ts';

export type ReadFunction = (plan: ReadPlan, control: ReadControl) => ReadOutcome;

export function serveReads(read: ReadFunction): void {
  const port = parentPort;
  if (!port) throw new Error('serveReads runs inside a worker thread, started by BlockingIoPool');
  const gauge = new Int32Array((workerData as WorkerSetup).gauge);
  const send = (message: FromWorker) => port.postMessage(message);

  port.on('message', (message: ToWorker) => {
    if (message.type === 'close') {
      port.close();
      return;
    }
    const { taskId, plan } = message;
    send({ type: 'started', taskId });
    enterRead(gauge);
    try {
      send({ type: 'finished', taskId, outcome: read(plan, controlFrom(new Int32Array(message.cells))) });
    } catch (err) {
      // Not lab-kit's errorMessage: loading lab-kit (and zod with it) adds a few hundred ms to every thread's start.
      send({ type: 'failed', taskId, error: err instanceof Error ? err.message : String(err) });
    } finally {
      leaveRead(gauge);
    }
  });
  send({ type: 'ready' });
}
