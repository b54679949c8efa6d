// Lesson 13's group commit: admissions that arrive together share one transaction and one
// update of the gate row.
//
// Every admission of the counter gate ends with the same two statements on the same row
// (lock the gate, add one) and a COMMIT; the next admission waits for that COMMIT. At a few
// hundred admissions a second the one row is the queue. A group does the work of many
// admissions in one transaction:
//
//   BEGIN
//   read the products of every admission in the group        one SELECT
//   insert every job (with a later lesson's columns)           one multi-row INSERT
//   (each admission's own step: lesson 14's time slot)         one statement each, if any
//   insert every outbox event                                  one multi-row INSERT
//   lock the gate, read its counter                            the lock, once per group
//   add the number admitted                                    once per group
//   COMMIT
//
// How a group forms (no timer, so a lone request waits for nobody): at most two groups run
// at a time per process (GROUPS_AT_ONCE). A request that arrives while both run waits in
// line; when one commits, everyone in line (up to ADMISSION_GROUP_MAX) becomes the next group. Under light load a
// group is one request, admitted alone exactly as before; under heavy load the line grows
// and each transaction carries more admissions. What a request pays is the wait for the
// group ahead of it; the gate benchmark reports it beside the rate.
//
// Why the promise (at every commit, at most the limit queued or running) still holds: the
// group reads the counter under the gate's lock, as one admission does, and admits its
// members in arrival order while there is room (each against its own limit). If some do not
// fit, the whole transaction rolls back and runs again with only the ones that fitted; the
// others are refused with the 503 they would have had alone. Nothing of a refused member was
// ever committed, so a refusal leaves no row, as before.
//
// What is never grouped (it goes alone, through admitAlone): a frozen snapshot (lesson 15's
// replay), a per-client quota (it counts the client's jobs one admission at a time) and the
// course's count gate (ADMISSION_GATE=count). When a group fails for a reason that belongs to
// one request (a missing product, lesson 14's time slot already taken, an Idempotency-Key
// already used: the replay of a request whose first answer was lost), every member runs again
// alone, so one request's error never becomes another's, and a replay finds its first job.
import { randomUUID } from 'node:crypto';
import type { Pool, PoolConnection, ResultSetHeader } from 'mysql2/promise';
import { AppError } from '@tasks-lab/01-state-machine';
import {
  ER_DUP_ENTRY,
  errnoOf,
  microseconds,
  readSnapshot,
  withTransaction,
  type Submission,
} from '@tasks-lab/11-mysql-leases';
import { defaultSubmitFaults, type SubmitFaults, type SubmitSteps } from '@tasks-lab/12-outbox';
import { errorMessage } from '@tasks-lab/lab-kit';
import { ENTER_GATE_GROUP, insertGroupEvents, insertGroupJobs, type JobColumns } from './admission-queries.ts';
import {
  AdmissionBusyError,
  CapacityExceededError,
  isLockConflict,
  pauseAfterLockConflict,
  unreachableOr,
} from './errors.ts';
import { lockGate } from './gate.ts';
import type { RouteQueue } from './options.ts';

/** One admission waiting for its group: what admitExport checked, and how to answer it. */
export interface GroupMember {
  submission: Submission;
  queueName: RouteQueue;
  /** The Client-Id header's client, or undefined when the request named none (the column stays NULL). */
  clientId: string | undefined;
  limit: number;
  retryAfterSeconds: number;
  /** Lock-wait retries of the whole group, before its members are answered 503. */
  retries: number;
  /** A later lesson's columns, written by the group's INSERT (a member without one of them gets NULL there). */
  jobColumns?: JobColumns;
  afterJobInsert?: SubmitSteps['afterJobInsert'];
  faults?: SubmitFaults;
  /** The group met a lock conflict and will run again: attempt is the one that failed. */
  onRetry?: (attempt: number, err: unknown) => void;
}

/** What one member of a committed group gets back. */
export interface GroupAdmission {
  jobId: string;
  eventId: string;
  /** Queued + running jobs before this one, under the gate's lock (the members ahead of it included). */
  activeBefore: number;
  /** How many the committed group admitted, and this one's place among them (1 = first). */
  group: { size: number; position: number };
  /** Transactions the group ran before it committed: 1, more after a lock wait or an overflow. */
  attempts: number;
}

/** "Run each of these alone": the group met an error that belongs to one of its requests. */
export class GroupSpoiled extends Error {
  constructor(override readonly cause: unknown) {
    super(`a grouped admission failed on one request's account (${errorMessage(cause)}); each member runs alone`);
  }
}

/**
 * Groups one process runs at once. Two, not one: a group spends most of its time waiting (for its
 * statements' round trips and for the COMMIT's log flush), and with a single group in flight the
 * line would sit idle through every one of those waits. The two meet only at the gate row, which
 * each locks for its last two statements, as single admissions do.
 */
const GROUPS_AT_ONCE = 2;

interface Waiting {
  member: GroupMember;
  settle: (outcome: GroupAdmission | Error) => void;
}

/**
 * A process's line of admissions for one pool: `admit` answers once the member's group has
 * committed (a GroupAdmission) or refused it (the error it would have had alone: 503
 * capacity-exceeded, 503 admission-busy, 503 database-unavailable), or with GroupSpoiled.
 */
export class AdmissionGroup {
  readonly #pool: Pool;
  readonly #maxSize: number;
  readonly #fitting: typeof countFitting;
  readonly #line: Waiting[] = [];
  #running = 0;

  /** `fitting` decides how many members fit under the lock. @defaultValue countFitting (the can-fail fixtures pass broken ones) */
  constructor(pool: Pool, maxSize: number, fitting: typeof countFitting = countFitting) {
    this.#pool = pool;
    this.#maxSize = maxSize;
    this.#fitting = fitting;
  }

  admit(member: GroupMember): Promise<GroupAdmission> {
    return new Promise((resolve, reject) => {
      this.#line.push({ member, settle: (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome)) });
      this.#startNext();
    });
  }

  #startNext(): void {
    if (this.#running >= GROUPS_AT_ONCE || this.#line.length === 0) return;
    this.#running += 1;
    const group = this.#line.splice(0, this.#maxSize);
    void admitGroup(this.#pool, group, this.#fitting).finally(() => {
      this.#running -= 1;
      this.#startNext();
    });
  }
}

/** Runs one group to its end: every member is settled, whatever happens. */
async function admitGroup(pool: Pool, group: Waiting[], fitting: typeof countFitting): Promise<void> {
  let members = group;
  const first = group[0]!.member;
  for (let attempt = 1; members.length > 0; attempt += 1) {
    try {
      const outcome = await tryGroup(
        pool,
        members.map((waiting) => waiting.member),
        fitting,
      );
      if (outcome.fits === members.length) {
        for (const [i, admitted] of outcome.admitted.entries()) members[i]!.settle({ ...admitted, attempts: attempt });
        return;
      }
      // Rolled back: the ones that did not fit are refused, the others try again without them.
      for (const [i, waiting] of members.entries())
        if (i >= outcome.fits)
          waiting.settle(
            new CapacityExceededError(
              waiting.member.limit,
              outcome.activeBefore + outcome.fits,
              waiting.member.retryAfterSeconds,
            ),
          );
      members = members.slice(0, outcome.fits);
    } catch (err) {
      if (isLockConflict(err) && attempt <= first.retries) {
        for (const waiting of members) waiting.member.onRetry?.(attempt, err);
        await pauseAfterLockConflict(attempt);
        continue;
      }
      const answer = answerFor(err, first, attempt);
      for (const waiting of members) waiting.settle(answer);
      return;
    }
  }
}

/** What one try of a group found under the gate's lock. Committed only when all fitted. */
interface GroupTry {
  activeBefore: number;
  /** How many members, in order, fitted under their limits. */
  fits: number;
  admitted: Omit<GroupAdmission, 'attempts'>[];
}

class Overflow extends Error {
  constructor(readonly found: GroupTry) {
    super('the group does not fit under the limit: rolled back');
  }
}

/** One transaction for the whole group; rolled back (Overflow) when not every member fits. */
async function tryGroup(pool: Pool, members: GroupMember[], fitting: typeof countFitting): Promise<GroupTry> {
  try {
    return await withTransaction(pool, async (tx) => {
      await insertJobs(tx, members);
      const eventIds = await insertEvents(tx, members);
      const activeBefore = await lockGate(tx);
      const fits = fitting(members, activeBefore);
      const found: GroupTry = {
        activeBefore,
        fits,
        admitted: members.slice(0, fits).map((member, i) => ({
          jobId: member.submission.jobId,
          eventId: eventIds[i]!,
          activeBefore: activeBefore + i,
          group: { size: fits, position: i + 1 },
        })),
      };
      if (fits < members.length) throw new Overflow(found);
      const [entered] = await tx.query<ResultSetHeader>(ENTER_GATE_GROUP, [fits]);
      if (entered.affectedRows !== 1) throw new Error('the admission gate has no row: run the lab 13 migrations');
      return found;
    });
  } catch (err) {
    if (err instanceof Overflow) return err.found;
    // A request's own error (a 4xx), or a key some job already has (a replay, or two requests
    // with one key at once): only that request must see it, and alone it does.
    if (err instanceof AppError || errnoOf(err) === ER_DUP_ENTRY) throw new GroupSpoiled(err);
    throw err;
  }
}

/** Members in arrival order, while each finds room under its own limit. */
export function countFitting(members: readonly GroupMember[], activeBefore: number): number {
  let fits = 0;
  while (fits < members.length && activeBefore + fits < members[fits]!.limit) fits += 1;
  return fits;
}

/** Every member's snapshot from one read of the products, then every job in one INSERT, then each member's own step. */
async function insertJobs(tx: PoolConnection, members: GroupMember[]): Promise<void> {
  const allIds = [...new Set(members.flatMap((member) => member.submission.ids))];
  const products = new Map((await readSnapshot(tx, allIds)).map((product) => [product.id, product]));
  const extra = [...new Set(members.flatMap((member) => Object.keys(member.jobColumns ?? {})))].sort();
  const values = members.flatMap(({ submission, clientId, jobColumns }) => [
    submission.jobId,
    JSON.stringify(submission.ids.map((id) => products.get(id)!)),
    microseconds(submission.deadlineMs),
    submission.idempotencyKey ?? null,
    submission.idempotencyKey === undefined ? null : submission.digest,
    clientId ?? null,
    ...extra.map((column) => jobColumns?.[column] ?? null),
  ]);
  const parameters = extra.length > 0 ? [extra, ...values] : values;
  const [inserted] = await tx.query<ResultSetHeader>(insertGroupJobs(members.length, extra.length), parameters);
  if (inserted.affectedRows !== members.length)
    throw new Error(`inserting a group of ${members.length} jobs affected ${inserted.affectedRows} rows`);
  for (const member of members) {
    // The same fault point as one admission's (lesson 12), once per job.
    await (member.faults ?? defaultSubmitFaults()).hit('after-job-insert');
    await member.afterJobInsert?.(tx, member.submission.jobId);
  }
}

async function insertEvents(tx: PoolConnection, members: GroupMember[]): Promise<string[]> {
  const eventIds = members.map(() => randomUUID());
  const values = members.flatMap((member, i) => [eventIds[i], member.submission.jobId, member.queueName]);
  const [inserted] = await tx.query<ResultSetHeader>(insertGroupEvents(members.length), values);
  if (inserted.affectedRows !== members.length)
    throw new Error(`inserting a group of ${members.length} events affected ${inserted.affectedRows} rows`);
  return eventIds;
}

/** The answer every member of a failed group gets: the same error an admission alone would have given. */
function answerFor(err: unknown, first: GroupMember, attempts: number): Error {
  if (err instanceof GroupSpoiled) return err;
  if (isLockConflict(err)) return new AdmissionBusyError(attempts, first.retryAfterSeconds);
  const answer = unreachableOr(err, first.retryAfterSeconds);
  return answer instanceof Error ? answer : new Error(String(answer));
}
