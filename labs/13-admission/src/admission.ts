// Lesson 13's submission: lesson 12's (the job and its outbox event in one transaction),
// with three additions:
//
//   route    the snapshot's row count, after de-duplication, picks the queue: at most
//            FAST_MAX_ROWS (30) -> exports.fast, more -> exports.bulk. It is written on the
//            outbox event, so the publisher (and any resend) knows where to send it.
//   gate     the admission gate (gate.ts) runs inside the same transaction: a full service
//            is a 503 with Retry-After, a client over its quota a 429, and nothing is created.
//   groups   admissions that arrive together share one transaction and one gate update
//            (admission-group.ts, ADMISSION_GROUP_MAX); a request with a quota, a frozen
//            snapshot or the count gate is admitted alone (admitAlone below), as the course
//            does, and so is a replay of an Idempotency-Key.
//   retries  a lock-wait timeout (1205) or a deadlock (1213) rolls the whole transaction
//            back; it is run again from the top, a bounded number of times, then answered
//            with 503 (never a 500). A 202 is sent only after a COMMIT: there is never a 202
//            for a job that was rolled back.
import type { Pool, PoolConnection, ResultSetHeader } from 'mysql2/promise';
import { AppError } from '@tasks-lab/01-state-machine';
import { checkSubmission, type Submission } from '@tasks-lab/11-mysql-leases';
import {
  readEvent,
  submitWithEvent,
  type SubmitSteps,
  type SubmitWithEventOptions,
  type SubmitWithEventResult,
} from '@tasks-lab/12-outbox';
import {
  AdmissionBusyError,
  InvalidClientIdError,
  isLockConflict,
  pauseAfterLockConflict,
  unreachableOr,
} from './errors.ts';
import { AdmissionGroup, GroupSpoiled } from './admission-group.ts';
import { SET_JOB_COLUMNS, type JobColumns } from './admission-queries.ts';
import { gateSteps, type GateReading, type GateRules } from './gate.ts';
import { COURSE_TIMINGS, ROUTES, type AdmissionOptionValues, type GateDesign, type RouteQueue } from './options.ts';

/** The rules of admission: lesson 13's options. */
export type AdmissionRules = Pick<
  AdmissionOptionValues,
  | 'admissionLimit'
  | 'clientQuota'
  | 'fastMaxRows'
  | 'admissionGate'
  | 'admissionRetries'
  | 'retryAfterSeconds'
  | 'earlyRefusal'
  | 'admissionGroupMax'
>;

export const COURSE_RULES: Readonly<AdmissionRules> = {
  admissionLimit: COURSE_TIMINGS.admissionLimit,
  clientQuota: COURSE_TIMINGS.clientQuota,
  fastMaxRows: COURSE_TIMINGS.fastMaxRows,
  admissionGate: COURSE_TIMINGS.admissionGate,
  admissionRetries: COURSE_TIMINGS.admissionRetries,
  retryAfterSeconds: COURSE_TIMINGS.retryAfterSeconds,
  earlyRefusal: COURSE_TIMINGS.earlyRefusal,
  admissionGroupMax: COURSE_TIMINGS.admissionGroupMax,
};

/** The client a request without a Client-Id header counts as. */
export const ANONYMOUS_CLIENT = 'anonymous';
const CLIENT_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The Client-Id header, checked before it becomes a column value; none = 'anonymous'. */
export function checkClientId(raw: string | undefined): string {
  if (raw === undefined) return ANONYMOUS_CLIENT;
  if (!CLIENT_ID.test(raw)) throw new InvalidClientIdError();
  return raw;
}

/** Where an export of `rows` distinct products goes: at most `fastMaxRows` -> exports.fast. */
export function routeFor(rows: number, fastMaxRows: number = COURSE_RULES.fastMaxRows): RouteQueue {
  return rows <= fastMaxRows ? ROUTES.fast : ROUTES.bulk;
}

/** One admission, as the gate saw it under its lock: logged for every new job. */
export interface Admission extends GateReading {
  jobId: string;
  queueName: RouteQueue;
  /** Transactions run for it: 1, or more after lock-wait timeouts. */
  attempts: number;
  /** Admitted in a group (src/admission-group.ts): how many it held and this one's place. */
  group?: { size: number; position: number };
}

export interface AdmitOptions extends Omit<SubmitWithEventOptions, 'queueName' | 'steps'> {
  rules?: Partial<AdmissionRules>;
  /** The queue, when the caller decides it (lesson 14's scheduled exports go to exports.bulk). @defaultValue the route by row count */
  queueName?: RouteQueue;
  /** A step between the job's insert and its event's, in the same transaction (lesson 14 inserts the time slot there). */
  afterJobInsert?: SubmitSteps['afterJobInsert'];
  /**
   * Columns a later lesson writes on the job (lesson 16's trace): in a group by the group's
   * INSERT, at no extra statement; alone by one UPDATE of the new row, before afterJobInsert.
   */
  jobColumns?: JobColumns;
  /** The Client-Id header (checked here); none = 'anonymous'. */
  clientId?: string;
  /** A lock conflict that will be retried: attempt is the one that failed. */
  onRetry?: (attempt: number, err: unknown) => void;
}

export interface AdmitResult extends SubmitWithEventResult {
  queueName: RouteQueue;
  /** What the gate read; undefined for a replay (`created: false`), which passes no gate. */
  admission?: Admission;
}

/**
 * Admits an export or refuses it, and answers only after the COMMIT. Throws
 * CapacityExceededError (503), ClientQuotaExceededError (429), AdmissionBusyError (503,
 * the gate stayed locked through every retry), DatabaseUnreachableError (503), or lesson
 * 11's 4xx for bad input. A replay of an Idempotency-Key answers the earlier job and
 * passes no gate: it creates nothing.
 */
export async function admitExport(
  pool: Pool,
  productIds: readonly number[],
  options: AdmitOptions = {},
): Promise<AdmitResult> {
  const rules: AdmissionRules = { ...COURSE_RULES, ...options.rules };
  const clientId = checkClientId(options.clientId);
  // Checked once, before any connection: the de-duplicated ids decide the route, and the
  // job id stays the same through every retry (a rolled-back attempt left no row).
  const submission = checkSubmission(productIds, options);
  const queueName = options.queueName ?? routeFor(submission.ids.length, rules.fastMaxRows);
  const request: CheckedRequest = { productIds, submission, queueName, clientId, rules, options };
  if (mayJoinGroup(rules, options)) {
    try {
      return await admitInGroup(pool, request);
    } catch (err) {
      if (!(err instanceof GroupSpoiled)) throw err;
      // The group failed on some request's account (maybe this one's): alone, it gets its own answer.
    }
  }
  return admitAlone(pool, request);
}

/** A request admitExport has checked, on its way to its transaction: alone or in a group. */
interface CheckedRequest {
  productIds: readonly number[];
  submission: Submission;
  queueName: RouteQueue;
  clientId: string;
  rules: AdmissionRules;
  options: AdmitOptions;
}

/** One admission in its own transaction (the course's shape; a quota, a frozen snapshot, the count gate, a group that failed). */
async function admitAlone(pool: Pool, request: CheckedRequest): Promise<AdmitResult> {
  const { productIds, submission, queueName, clientId, rules, options } = request;
  const gateRules: GateRules = {
    limit: rules.admissionLimit,
    clientQuota: rules.clientQuota,
    retryAfterSeconds: rules.retryAfterSeconds,
    recordClient: options.clientId !== undefined || rules.clientQuota > 0,
  };
  const attempts = rules.admissionRetries + 1;
  for (let attempt = 1; ; attempt += 1) {
    let reading: GateReading | undefined;
    try {
      const steps = {
        ...gateSteps(rules.admissionGate as GateDesign, gateRules, clientId, (seen) => (reading = seen)),
        afterJobInsert: async (tx: PoolConnection, jobId: string) => {
          await setJobColumns(tx, jobId, options.jobColumns);
          await options.afterJobInsert?.(tx, jobId);
        },
      };
      const result = await submitWithEvent(pool, productIds, { ...options, jobId: submission.jobId, queueName, steps });
      if (!result.created) return { ...result, queueName: await routeOfEvent(pool, result.eventId, queueName) };
      // Committed: only now does the reading count as an admission.
      return {
        ...result,
        queueName,
        admission: reading && { ...reading, jobId: result.jobId, queueName, attempts: attempt },
      };
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (isLockConflict(err)) {
        if (attempt >= attempts) throw new AdmissionBusyError(attempts, rules.retryAfterSeconds);
        options.onRetry?.(attempt, err);
        await pauseAfterLockConflict(attempt);
        continue;
      }
      throw unreachableOr(err, rules.retryAfterSeconds);
    }
  }
}

/** A later lesson's columns on a job admitted alone: one UPDATE of the new row, in its transaction. */
async function setJobColumns(tx: PoolConnection, jobId: string, columns: JobColumns | undefined): Promise<void> {
  if (!columns || Object.keys(columns).length === 0) return;
  const [updated] = await tx.query<ResultSetHeader>(SET_JOB_COLUMNS, [columns, jobId]);
  if (updated.affectedRows !== 1)
    throw new Error(`setting columns of job ${jobId} affected ${updated.affectedRows} rows`);
}

/** src/admission-group.ts's rules for who may share a transaction. */
function mayJoinGroup(rules: AdmissionRules, options: AdmitOptions): boolean {
  return (
    rules.admissionGroupMax > 1 &&
    rules.admissionGate === 'counter' &&
    rules.clientQuota === 0 &&
    options.snapshot === undefined
  );
}

/** The process's line of admissions for each pool (and group size). */
const groups = new WeakMap<Pool, Map<number, AdmissionGroup>>();

function groupOf(pool: Pool, maxSize: number): AdmissionGroup {
  let bySize = groups.get(pool);
  if (!bySize) groups.set(pool, (bySize = new Map()));
  let group = bySize.get(maxSize);
  if (!group) bySize.set(maxSize, (group = new AdmissionGroup(pool, maxSize)));
  return group;
}

async function admitInGroup(pool: Pool, request: CheckedRequest): Promise<AdmitResult> {
  const { submission, queueName, clientId, rules, options } = request;
  const admitted = await groupOf(pool, rules.admissionGroupMax).admit({
    submission,
    queueName,
    clientId: options.clientId === undefined ? undefined : clientId,
    limit: rules.admissionLimit,
    retryAfterSeconds: rules.retryAfterSeconds,
    retries: rules.admissionRetries,
    jobColumns: options.jobColumns,
    afterJobInsert: options.afterJobInsert,
    faults: options.faults,
    onRetry: options.onRetry,
  });
  const admission: Admission = {
    design: 'counter',
    activeBefore: admitted.activeBefore,
    limit: rules.admissionLimit,
    clientId,
    jobId: admitted.jobId,
    queueName,
    attempts: admitted.attempts,
    group: admitted.group,
  };
  return { jobId: admitted.jobId, eventId: admitted.eventId, created: true, queueName, admission };
}

/** A replay's queue: the one its event was written with (the route of the first request). */
async function routeOfEvent(pool: Pool, eventId: string, fallback: RouteQueue): Promise<RouteQueue> {
  const event = await readEvent(pool, eventId);
  return (event?.queueName as RouteQueue | undefined) ?? fallback;
}

/** The header that names a client for the per-client quota. */
export const CLIENT_ID_HEADER = 'Client-Id';

/** "admitted job … to exports.fast: 3 of 5 active before it (counter gate)": the line each admission logs. */
export function describeAdmission(admission: Admission): string {
  const client =
    admission.clientActiveBefore === undefined
      ? ''
      : `, client ${admission.clientId} had ${admission.clientActiveBefore}`;
  const retried = admission.attempts > 1 ? `, after ${admission.attempts - 1} lock-wait retries` : '';
  const group =
    admission.group && admission.group.size > 1
      ? `, ${admission.group.position} of a group of ${admission.group.size}`
      : '';
  return `admitted job ${admission.jobId} to ${admission.queueName}: ${admission.activeBefore} of ${admission.limit} active before it (${admission.design} gate${group}${client}${retried})`;
}
