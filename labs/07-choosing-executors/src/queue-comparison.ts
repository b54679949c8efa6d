// The comparison lesson 07 asks for: BullMQ against other Node job queues, on the
// runtime facts that decide how a job fails and what is left of it afterwards.
// Every fact says where it was read. Versions: `npm view <package> version` on the
// date below; defaults: read in that version's own files (BullMQ's as installed in
// labs/08-broker-worker/node_modules, the others from the tarball `npm pack <package>@<version>`
// downloads). A queue moves on: check again before relying on a figure.

/** One fact about a queue, and the file or page it was read from. */
export interface SourcedFact {
  says: string;
  /** `<package>@<version> <file>`, or a URL. */
  source: string;
}

export interface QueueFacts {
  /** The npm package. */
  package: string;
  version: string;
  /** When `npm view <package> version` printed that version (YYYY-MM-DD). */
  checkedOn: string;
  /** Where jobs live: the broker or database the queue needs. */
  storage: SourcedFact;
  /** The Node versions the package declares (`engines.node`). */
  node: SourcedFact;
  /** What bounds a job's running time, and what happens to a job whose worker went quiet. */
  timeouts: SourcedFact;
  /** What happens to a failed job when nobody configured retries. */
  retryDefault: SourcedFact;
  /** What is kept of a finished job and its result, and for how long. */
  resultRetention: SourcedFact;
}

/** The facts every row must carry, in the order the doc's table shows them. */
export const COMPARED_FACTS = ['storage', 'node', 'timeouts', 'retryDefault', 'resultRetention'] as const;
export type ComparedFact = (typeof COMPARED_FACTS)[number];

/** The queue labs 08+ use; its version must be the one lab 08 installs. */
export const COURSE_QUEUE = 'bullmq';

export const QUEUE_COMPARISON: readonly QueueFacts[] = [
  {
    package: 'bullmq',
    version: '6.7.0',
    checkedOn: '2026-11-30',
    storage: {
      says: 'Redis: refuses a server older than 5.0.0 and warns below 6.2.0',
      source: 'bullmq@6.7.0 dist/esm/classes/redis-connection.js (minimumVersion, recommendedMinimumVersion)',
    },
    node: { says: '>=14.18.0', source: 'bullmq@6.7.0 package.json engines' },
    timeouts: {
      says: "no limit on a job's running time; the worker holds a 30 s lock it keeps renewing; a job whose lock lapsed is found by the stalled check (every 30 s) and put back to wait once, then failed",
      source: 'bullmq@6.7.0 dist/esm/interfaces/worker-options.d.ts (lockDuration, stalledInterval, maxStalledCount)',
    },
    retryDefault: {
      says: 'attempts 1: a failed job is not retried; with more attempts and no backoff it is retried at once',
      source: 'bullmq@6.7.0 dist/esm/interfaces/base-job-options.d.ts (attempts, backoff)',
    },
    resultRetention: {
      says: "completed and failed jobs stay in Redis with the handler's return value (returnvalue) until removeOnComplete / removeOnFail or a clean removes them",
      source:
        'bullmq@6.7.0 dist/esm/interfaces/base-job-options.d.ts (removeOnComplete, removeOnFail), dist/esm/classes/job.d.ts',
    },
  },
  {
    package: 'graphile-worker',
    version: '0.18.0',
    checkedOn: '2026-11-30',
    storage: {
      says: 'PostgreSQL (its own schema, graphile_worker)',
      source: 'graphile-worker@0.18.0 README.md, dist/config.js (schema)',
    },
    node: { says: '>=22.18.0 (the labs run on Node 20)', source: 'graphile-worker@0.18.0 package.json engines' },
    timeouts: {
      says: "no limit on a job's running time; a job locked for more than 4 hours counts as abandoned and another worker may take it",
      source: "graphile-worker@0.18.0 sql/000016.sql (locked_at < now() - interval '4 hours')",
    },
    retryDefault: {
      says: 'max_attempts 25, waiting exp(min(attempts, 10)) seconds before the next try (about 3 s at first, at most about 6 hours)',
      source: 'graphile-worker@0.18.0 sql/000020.sql (add_job), dist/sql/failJobs.js',
    },
    resultRetention: {
      says: "no result is kept: a completed job's row is deleted; a job that used up its attempts stays with its last_error",
      source: 'graphile-worker@0.18.0 dist/sql/completeJobs.js, dist/sql/failJobs.js',
    },
  },
  {
    package: 'pg-boss',
    version: '12.38.0',
    checkedOn: '2026-11-30',
    storage: { says: 'PostgreSQL 13 or newer', source: 'pg-boss@12.38.0 README.md (Requirements)' },
    node: { says: '>=22.12.0 (the labs run on Node 20)', source: 'pg-boss@12.38.0 package.json engines' },
    timeouts: {
      says: 'expireInSeconds 900: a job active for more than 15 minutes is retried or failed',
      source: 'pg-boss@12.38.0 dist/types.d.ts (expireInSeconds), dist/plans.js (QUEUE_DEFAULTS)',
    },
    retryDefault: {
      says: 'retryLimit 2, retryDelay 0, retryBackoff false: two more tries, at once',
      source: 'pg-boss@12.38.0 dist/types.d.ts (retryLimit, retryDelay, retryBackoff), dist/plans.js (QUEUE_DEFAULTS)',
    },
    resultRetention: {
      says: "the handler's result is stored in the job's output; completed jobs are deleted after 7 days, jobs that never ran after 14 days",
      source: 'pg-boss@12.38.0 dist/types.d.ts (output, deleteAfterSeconds, retentionSeconds)',
    },
  },
  {
    package: 'bee-queue',
    version: '2.0.0',
    checkedOn: '2026-11-30',
    storage: { says: 'Redis', source: 'bee-queue@2.0.0 README.md' },
    node: { says: '>= 20', source: 'bee-queue@2.0.0 package.json engines' },
    timeouts: {
      says: 'no limit unless job.timeout(ms) sets one; a worker that stops reporting for 5000 ms (stallInterval) has its job put back in the queue',
      source: 'bee-queue@2.0.0 README.md (Job#timeout, Settings), lib/defaults.js',
    },
    retryDefault: {
      says: "retries 0: a failed job is not retried; backoff 'immediate' when retries are set",
      source: 'bee-queue@2.0.0 README.md (Job#retries, Job#backoff)',
    },
    resultRetention: {
      says: 'the result is published once as an event, never stored; finished job records stay in Redis (removeOnSuccess and removeOnFailure default to false)',
      source: 'bee-queue@2.0.0 lib/queue.js (_finishJob), lib/defaults.js',
    },
  },
  {
    package: 'agenda',
    version: '6.2.6',
    checkedOn: '2026-11-30',
    storage: {
      says: 'MongoDB, PostgreSQL or Redis, each through its own backend package (@agendajs/mongo-backend ...)',
      source: 'agenda@6.2.6 README.md (Official Backend Packages)',
    },
    node: { says: '>=18.0.0', source: 'agenda@6.2.6 package.json engines' },
    timeouts: {
      says: 'lockLifetime 10 minutes: a job still running after that is cancelled and its lock released, unless it calls touch()',
      source: 'agenda@6.2.6 dist/index.js (defaultLockLifetime), dist/JobProcessor.js',
    },
    retryDefault: {
      says: 'no automatic retry: a failed job is retried only when its definition has a backoff strategy',
      source: 'agenda@6.2.6 dist/Job.js, dist/types/JobDefinition.d.ts (backoff)',
    },
    resultRetention: {
      says: "the handler's return value is not stored; the job document (lastFinishedAt, failCount, failReason) stays until removed (removeOnComplete defaults to false)",
      source: 'agenda@6.2.6 dist/Job.js, dist/index.js (removeOnComplete)',
    },
  },
];

/** What is missing from a comparison: too few queues, the course's queue absent, a fact or its source empty. */
export function comparisonGaps(rows: readonly QueueFacts[]): string[] {
  const gaps: string[] = [];
  if (!rows.some((row) => row.package === COURSE_QUEUE)) gaps.push(`${COURSE_QUEUE} is not compared`);
  const others = rows.filter((row) => row.package !== COURSE_QUEUE).length;
  if (others < 2) gaps.push(`${others} other queue(s) compared (at least 2)`);
  for (const row of rows) {
    if (!/^\d+\.\d+\.\d+/.test(row.version)) gaps.push(`${row.package}: version "${row.version}" is not a version`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(row.checkedOn))
      gaps.push(`${row.package}: checkedOn "${row.checkedOn}" is not a date`);
    for (const fact of COMPARED_FACTS) {
      const { says, source } = row[fact];
      if (says.trim() === '') gaps.push(`${row.package}: ${fact} is empty`);
      // A source names the package at this version (a file in it) or a page.
      else if (!source.includes(`${row.package}@${row.version}`) && !/^https:\/\//.test(source)) {
        gaps.push(
          `${row.package}: ${fact} does not say where it was read (${row.package}@${row.version} <file>, or a URL)`,
        );
      }
    }
  }
  return gaps;
}
