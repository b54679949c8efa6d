// Lesson 11's pipeline checks: the HTTP API, BullMQ as a wake-up and the worker process,
// end to end. The scenarios (scripts/pipeline-scenarios.ts) run the real thing; each
// judge below reads only their evidence. buildPipelineChecks(deps) swaps a broken part
// in for the can-fail tests; building starts nothing.
import { defineCheck, outcome, sharedScenario, type Check } from '@tasks-lab/lab-kit';
import type { LeaseOptionValues } from '../src/options.ts';
import {
  completedMeansDelivered,
  endToEnd,
  idempotentSubmission,
  tableRead,
  type PipelineParts,
  type PipelineSetup,
} from './pipeline-scenarios.ts';
import { verifyDatabaseOnce } from './lease-scenarios.ts';

export interface PipelineCheckDeps {
  /** Broken parts (the can-fail tests). */
  pipelineParts?: Partial<PipelineParts>;
  /** A migrated database of the caller's own (the tests'); verify recreates tasks_lab11_verify once. */
  database?: string;
  /** @defaultValue the short timings (USE_COURSE_TIMINGS=1 forces the course's) */
  timings?: LeaseOptionValues;
}

const show = (value: unknown) => JSON.stringify(value);

export function buildPipelineChecks(deps: PipelineCheckDeps = {}): Check[] {
  const setup: PipelineSetup = {
    parts: deps.pipelineParts,
    database: deps.database ?? verifyDatabaseOnce,
    timings: deps.timings,
  };
  // One experiment, three checks: submit, run, then make Redis forget.
  const endToEndRun = sharedScenario(endToEnd(setup));

  return [
    defineCheck({
      id: 'http-submit-succeeds',
      name: 'POST /exports answers 202; a worker woken with the id claims, writes <job id>.<token>.json and publishes: GET shows succeeded',
      timeoutMs: 90_000,
      scenario: endToEndRun,
      judge: (e) =>
        outcome(
          e.postStatus === 202 &&
            e.final.status === 200 &&
            e.final.state === 'succeeded' &&
            e.final.attempts === 1 &&
            e.artifact.exists &&
            e.artifact.nameCarriesToken &&
            e.artifact.holdsSnapshot,
          `POST ${e.postStatus}; GET ${e.final.status} ${show(e.final.state)} after ${show(e.final.attempts)} claim(s), ` +
            `result_ref ${show(e.final.resultRef)}; artifact ${e.artifact.exists ? 'exists' : 'MISSING'}, ` +
            `${e.artifact.nameCarriesToken ? 'named after the job and its token' : 'NOT named <job id>.<token>.json'}, ` +
            `${e.artifact.holdsSnapshot ? 'holds the frozen snapshot' : 'does NOT hold the snapshot'} (${e.timings})`,
        ),
    }),
    defineCheck({
      id: 'worker-gets-only-job-id',
      name: 'The wake-up message is only { job_id }: the worker reads the snapshot from the row',
      timeoutMs: 90_000,
      scenario: endToEndRun,
      judge: (e) => {
        const shapes = e.messages.map((data) =>
          Object.keys(data as object)
            .sort()
            .join(','),
        );
        const onlyId = shapes.length > 0 && shapes.every((shape) => shape === 'job_id');
        return outcome(
          onlyId && e.final.state === 'succeeded',
          `${shapes.length} wake-up message(s) with the fields ${show([...new Set(shapes)])}; the job ended ${show(e.final.state)} (${e.timings})`,
        );
      },
    }),
    defineCheck({
      id: 'redis-loss-changes-nothing',
      name: 'Redis losing the BullMQ job and its result changes nothing a user sees: GET still answers from the table',
      timeoutMs: 90_000,
      scenario: endToEndRun,
      judge: (e) =>
        outcome(
          e.final.state === 'succeeded' &&
            e.afterRedisLoss.bullJobsLeft === 0 &&
            e.afterRedisLoss.status === 200 &&
            e.afterRedisLoss.state === 'succeeded' &&
            e.afterRedisLoss.resultRef === e.final.resultRef,
          `before: ${show(e.final.state)}; queue obliterated (${e.afterRedisLoss.bullJobsLeft} BullMQ jobs left); ` +
            `after: GET ${e.afterRedisLoss.status} ${show(e.afterRedisLoss.state)}, result_ref ${e.afterRedisLoss.resultRef === e.final.resultRef ? 'unchanged' : `now ${show(e.afterRedisLoss.resultRef)}`} (${e.timings})`,
        ),
    }),
    defineCheck({
      id: 'get-reads-the-table',
      name: 'GET /exports/:id reads the row: it survives an API restart, follows changes made without HTTP, and is 404 only when there is no row',
      timeoutMs: 60_000,
      scenario: tableRead(setup),
      judge: (e) =>
        outcome(
          e.afterRestart.status === 200 &&
            e.afterRestart.state === 'queued' &&
            e.afterRowChanged.status === 200 &&
            e.afterRowChanged.state === 'running' &&
            e.afterRowChanged.attempts === 1 &&
            e.insertedElsewhere.status === 200 &&
            e.insertedElsewhere.state === 'queued' &&
            e.unknownId.status === 404 &&
            e.unknownId.error === 'job-not-found',
          `after a restart ${e.afterRestart.status} ${show(e.afterRestart.state)}; after a claim made without HTTP ${e.afterRowChanged.status} ` +
            `${show(e.afterRowChanged.state)} (attempts ${show(e.afterRowChanged.attempts)}); a job inserted without HTTP ` +
            `${e.insertedElsewhere.status} ${show(e.insertedElsewhere.state)}; an id with no row ${e.unknownId.status} ${show(e.unknownId.error)} (${e.timings})`,
        ),
    }),
    defineCheck({
      id: 'idempotent-submission',
      name: 'A retry with the same Idempotency-Key and body returns the same job; the same key with another body is refused (409)',
      timeoutMs: 60_000,
      scenario: idempotentSubmission(setup),
      judge: (e) =>
        outcome(
          e.first.status === 202 &&
            e.retry.status === 202 &&
            e.retry.id === e.first.id &&
            e.retry.replayed &&
            e.otherBody.status === 409 &&
            e.otherBody.error === 'idempotency-key-reused' &&
            e.rowsWithKey === 1,
          `first ${e.first.status}; retry ${e.retry.status} ${e.retry.id === e.first.id ? 'same job' : 'a DIFFERENT job'}` +
            `${e.retry.replayed ? ' (Idempotent-Replayed)' : ''}; other body ${e.otherBody.status} ${show(e.otherBody.error)}; ` +
            `${e.rowsWithKey} row(s) carry the key (${e.timings})`,
        ),
    }),
    defineCheck({
      id: 'completed-means-delivered',
      name: 'BullMQ "completed" means delivered, not succeeded: a wake-up whose claim got nothing is completed while the row is unchanged',
      timeoutMs: 90_000,
      scenario: completedMeansDelivered(setup),
      judge: (e) => {
        const held = e.heldElsewhere;
        const late = e.alreadyDone;
        return outcome(
          held.bullState === 'completed' &&
            held.returned?.claimed === false &&
            held.rowState === 'running' &&
            held.rowAttempts === 1 &&
            late.bullState === 'completed' &&
            late.returned?.claimed === false &&
            late.rowState === 'succeeded' &&
            late.attemptsAfter === late.attemptsBefore,
          `wake-up for a job whose lease is held: BullMQ ${held.bullState}, returned ${show(held.returned)}, row ${show(held.rowState)} ` +
            `(attempts ${show(held.rowAttempts)}); late duplicate for a succeeded job: BullMQ ${late.bullState}, returned ${show(late.returned)}, ` +
            `row ${show(late.rowState)}, attempts ${show(late.attemptsBefore)} -> ${show(late.attemptsAfter)} (${e.timings})`,
        );
      },
    }),
  ];
}
