// Lesson 16's view of a delivery: lesson 15's delivery hooks, writing one phase line per step
// (JSON on stdout, src/phase-log.ts) with its span, and the fault point before the claim.
//
//   received     each delivery of an export's wake-up: message_id = the BullMQ job id (= the
//                outbox event id), the trace = a child span of the message's traceparent.
//                Then the fault point `before-claim` (LAB_FAULTS=before-claim:throw:once makes a
//                delivery fail before any claim: the failure matrix's "claim之前失败" row).
//   claimed      the claim won: lease_token and attempt (the ROW's attempts, not BullMQ's)
//   published    the finish was asked: published true (or false: FINISH refused it)
//   not-claimed  the claim took nothing (a duplicate, a running row, a backoff not over, …)
//   busy         the row stayed locked: the delivery is put back (lesson 15's lost wake-up fix)
//   stopped      canContinue said no, or the process is stopping: no artifact, no finish
//   failed       the delivery threw (the error's type, code and short message only)
//
// Each claim also records the job's first claim, in the claim's own UPDATE (src/latency.ts,
// recordingFirstClaim): submit -> first claim is one of lesson 16's latency targets, and only the
// workers see claims.
//
// One phase line per step, as JSON on stdout (src/phase-log.ts), between lesson 15's own
// lines, which stay (`export worker <pid> ready`, `… claimed job …`: the drills read them).
// The message's traceparent is taken out before lesson 15's delivery parses `{ job_id }`.
// Spans: the delivery is a child of the send's span; the claim and the end of the delivery
// are children of the delivery (parent_span_id says which): one trace id, a new span per step.
//
import { EXPORT_JOB_NAME } from '@tasks-lab/08-broker-worker';
import { faultPoints, type FaultPoints } from '@tasks-lab/lab-kit';
import type { ClaimedJob } from '@tasks-lab/11-mysql-leases';
import {
  RECOVERY_FAULT_POINTS,
  type ChunkedOutcome,
  type DeliveryHooks,
  type RecoveryFaults,
  type RecoveryJob,
} from '@tasks-lab/15-recovery';
import type { Phase, PhaseLogger } from './phase-log.ts';
import { parseTracedWakeUp } from './traced-publisher.ts';
import { childSpan, traceFields, type TraceParent } from './trace.ts';

// ---- fault points ----------------------------------------------------------------

/** Lesson 15's points, plus one before each delivery's claim. */
export const OBSERVED_FAULT_POINTS = [...RECOVERY_FAULT_POINTS, 'before-claim'] as const;
export type ObservedFaultPoint = (typeof OBSERVED_FAULT_POINTS)[number];
export type ObservedFaults = FaultPoints<ObservedFaultPoint>;

/** Reads LAB_FAULTS once; a rule naming another point is refused at start-up. */
export const observedFaults = (env: NodeJS.ProcessEnv = process.env): ObservedFaults =>
  faultPoints(OBSERVED_FAULT_POINTS, env);

/** The same reading, as lesson 15's worker takes it (its points): one count of `once` for the whole process. */
export function asRecoveryFaults(faults: ObservedFaults): RecoveryFaults {
  return { points: RECOVERY_FAULT_POINTS, hit: (point) => faults.hit(point), describe: () => faults.describe() };
}

// ---- the hooks -------------------------------------------------------------------

/** What the hooks remember of one delivery, from `received` to its end. */
interface Delivery {
  jobId: string;
  /** This delivery's span (a child of the message's), when the message had a trace. */
  span: TraceParent | undefined;
  token?: string;
  attempt?: number;
}

export interface ObservedHooksOptions {
  logger: PhaseLogger;
  faults: Pick<ObservedFaults, 'hit'>;
}

/** A step of the delivery: its own span, a child of the delivery's. */
const stepOf = (delivery: Delivery) => {
  const step = delivery.span ? childSpan(delivery.span) : undefined;
  return { ...traceFields(step), parent_span_id: delivery.span?.spanId };
};

/** How a delivery ended, as a phase (the course logs `published` with success true or false). */
export function phaseOfOutcome(outcome: ChunkedOutcome): Phase {
  if (outcome.busy) return 'busy';
  if (!outcome.claimed) return 'not-claimed';
  if (outcome.stoppedBecause) return 'stopped';
  return 'published';
}

/** Lesson 15's delivery hooks that write the phase lines (see the header). */
export function observedHooks({ logger, faults }: ObservedHooksOptions): DeliveryHooks {
  // Keyed by BullMQ's Job object: one per delivery (a redelivery is a new object), gone with it.
  const deliveries = new WeakMap<RecoveryJob, Delivery>();
  const deliveryOf = (job: RecoveryJob): Delivery | undefined => {
    const known = deliveries.get(job);
    if (known) return known;
    try {
      const { message, trace } = parseTracedWakeUp(job.data);
      return { jobId: message.job_id, span: trace && childSpan(trace) };
    } catch {
      return undefined; // not a wake-up: lesson 15's own line reports its failure
    }
  };

  return {
    messageOf: (job) => parseTracedWakeUp(job.data).message,
    async received(job) {
      const { message, trace } = parseTracedWakeUp(job.data);
      const delivery: Delivery = { jobId: message.job_id, span: trace && childSpan(trace) };
      deliveries.set(job, delivery);
      logger.phase({
        job_id: delivery.jobId,
        phase: 'received',
        message_id: job.id ?? null,
        ...traceFields(delivery.span),
        parent_span_id: trace?.spanId,
        queue: job.queueName,
        stalled: job.stalledCounter,
      });
      await faults.hit('before-claim');
    },
    claimed(job, claimed: ClaimedJob) {
      const delivery = deliveryOf(job);
      if (!delivery) return;
      delivery.token = claimed.token;
      delivery.attempt = claimed.attempts;
      logger.phase({
        job_id: delivery.jobId,
        phase: 'claimed',
        message_id: job.id ?? null,
        lease_token: claimed.token,
        attempt: claimed.attempts,
        ...stepOf(delivery),
        queue: job.queueName,
        lease_until: claimed.leaseUntil.toISOString(),
      });
    },
    delivered(job, outcome) {
      const delivery = deliveryOf(job);
      if (!delivery) return;
      logger.phase({
        job_id: delivery.jobId,
        phase: phaseOfOutcome(outcome),
        message_id: job.id ?? null,
        lease_token: outcome.claimed ? delivery.token : null,
        attempt: outcome.attempt,
        ...stepOf(delivery),
        queue: job.queueName,
        published: outcome.published,
        chunks: `${outcome.chunksWritten}/${outcome.chunksTotal}`,
        stopped_because: outcome.stoppedBecause,
      });
    },
    failed(job, err) {
      if (!job || job.name !== EXPORT_JOB_NAME) return; // a tick's failure is lesson 14's line
      const delivery = deliveryOf(job);
      if (!delivery) return;
      logger.error({
        job_id: delivery.jobId,
        phase: 'failed',
        message_id: job.id ?? null,
        lease_token: delivery.token ?? null,
        attempt: delivery.attempt ?? null,
        ...stepOf(delivery),
        queue: job.queueName,
        err,
      });
    },
  };
}
