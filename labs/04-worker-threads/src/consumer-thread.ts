// Entry point of one consumer thread (started by runThreadedBatch).
import { parentPort, workerData } from 'node:worker_threads';
import { startConsumer } from './consumer.ts';
import type { ConsumerSetup } from './messages.ts';

if (!parentPort) throw new Error('consumer-thread.ts runs as a worker thread; start it with runThreadedBatch()');
startConsumer(parentPort, workerData as ConsumerSetup);
