// Where lesson 09's export jobs live, and their types. Lab 08's queue layer builds
// every Queue and Worker; this lab only names its own key prefix (`tasks-lab09`), so
// labs running at the same time on one Redis never see each other's keys.
//
// A job's state (waiting, active, completed, failed), its attempt counters and its
// result live in BullMQ's job hash in Redis and nowhere else: lesson 11 makes the
// record durable in MySQL.
import type { Job, Queue, Worker } from 'bullmq';
import { labPrefix } from '@tasks-lab/infra';
import type { ExportMessage } from '@tasks-lab/07-choosing-executors';
import type { ExportJobName, QueueAddress } from '@tasks-lab/08-broker-worker';
import type { DeliveryResult } from './export-worker.ts';

/** Lesson 09's BullMQ key prefix: `tasks-lab09`. */
export const QUEUE_PREFIX = labPrefix('09');

/** Where lesson 09's export jobs live: prefix tasks-lab09, queue `queueName`. */
export const exportsAddress = (queueName: string): QueueAddress => ({ prefix: QUEUE_PREFIX, queueName });

/** Lesson 08's export message and job name; the result is now one delivery's (DeliveryResult). */
export type ExportsQueue = Queue<ExportMessage, DeliveryResult, ExportJobName>;
export type ExportsWorker = Worker<ExportMessage, DeliveryResult, ExportJobName>;
export type ExportJob = Job<ExportMessage, DeliveryResult, ExportJobName>;
