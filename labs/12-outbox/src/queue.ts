// Where lesson 12's wake-ups go: lesson 11's message (`{ job_id }`) and job options, under
// lab 12's own key prefix. Only the publisher sends them now, one per outbox event, with
// the EVENT id as the BullMQ job id:
//
//   BullMQ silently ignores an add whose id already exists (in any state, until it is
//   removed) and hands back the old job. So an event sent twice (its confirmation was
//   lost, its claim passed, another round sent it again) reaches the worker ONCE while the
//   first job is still kept: the broker absorbs the resend. After the retention removed
//   it, the resend is a real second delivery, and lesson 11's claim and finish keep the
//   result single. Lesson 11 used a fresh id per wake-up; lesson 15's recovery will create
//   a NEW event (a new id) when it must wake a job again.
import { labPrefix } from '@tasks-lab/infra';
import { EXPORT_JOB_NAME, EXPORTS_QUEUE, enqueue, type QueueAddress } from '@tasks-lab/08-broker-worker';
import { parseWakeUp, WAKE_UP_JOB_OPTIONS, type WakeUpJob, type WakeUpQueue } from '@tasks-lab/11-mysql-leases';

/** Lesson 12's BullMQ key prefix: `tasks-lab12`, so labs running at once never share keys. */
export const QUEUE_PREFIX = labPrefix('12');

/** Where lesson 12's wake-ups live: prefix tasks-lab12, queue `queueName` (the course's `exports`). */
export const exportsAddress = (queueName: string = EXPORTS_QUEUE): QueueAddress => ({
  prefix: QUEUE_PREFIX,
  queueName,
});

/** Sends one event's wake-up: `{ job_id }`, BullMQ job id = the event id (see the header). */
export function sendWakeUp(queue: WakeUpQueue, event: { eventId: string; jobId: string }): Promise<WakeUpJob> {
  return enqueue(
    queue,
    EXPORT_JOB_NAME,
    { job_id: event.jobId },
    { jobId: event.eventId, validate: parseWakeUp, jobOptions: WAKE_UP_JOB_OPTIONS },
  );
}
