// Lesson 01's checklist from the course, in our own words, and what grades each item:
// `check:<id>` is a verify check (scripts/checks.ts), `test:<id>` a vitest test tagged
// [test:<id>] in its title. `pnpm lab coverage 01` checks every reference exists and
// writes the table in docs/01-state-machine.md from this list.
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  // Learning checks
  {
    section: 'learning-check',
    item: 'POST /exports answers 202 with a job id and a Location header',
    gradedBy: ['check:submit-answers-202'],
  },
  {
    section: 'learning-check',
    item: 'The Location leads to the same job id',
    gradedBy: ['check:location-returns-job'],
  },
  {
    section: 'learning-check',
    item: 'A newly submitted job is queued',
    gradedBy: ['check:submit-answers-202', 'check:location-returns-job'],
  },
  { section: 'learning-check', item: 'An unknown job id answers 404', gradedBy: ['check:unknown-id-404'] },
  {
    section: 'learning-check',
    item: 'queued -> running -> succeeded is allowed',
    gradedBy: ['check:allowed-path-succeeds'],
  },
  {
    section: 'learning-check',
    item: 'succeeded -> running is refused and the job stays succeeded',
    gradedBy: ['check:illegal-transition-rejected'],
  },

  // Implementation decisions
  {
    section: 'implementation-decision',
    item: 'The job id is a resource of its own, not tied to the connection that submitted it',
    gradedBy: ['test:job-id-outlives-connection', 'check:location-returns-job'],
  },
  {
    section: 'implementation-decision',
    item: 'Accepting for real means storing the input and the record durably; an in-memory store cannot promise that',
    gradedBy: ['check:restart-forgets-jobs', 'test:each-process-own-memory'],
  },
  {
    section: 'implementation-decision',
    item: 'A finished job points to its result (a reference and a checksum), never a large file inside the status answer',
    docOnly: 'lesson 01 produces no result at all; result references with checksums arrive with the worker lessons',
  },
  {
    section: 'implementation-decision',
    item: 'A transition checks before it writes, so a refused move leaves no half-updated record',
    gradedBy: ['check:illegal-transition-rejected', 'test:store-race-one-winner'],
  },
  {
    section: 'implementation-decision',
    item: 'terminal is derived from the state on every read, never stored',
    gradedBy: ['check:terminal-derived'],
  },

  // The drill
  {
    section: 'drill',
    item: 'Submit a job, restart the server: the old id answers 404',
    gradedBy: ['check:restart-forgets-jobs'],
  },

  // Acceptance
  {
    section: 'acceptance',
    item: 'The API tells accepted, running and finished jobs apart',
    gradedBy: ['check:terminal-derived'],
  },
  {
    section: 'acceptance',
    item: 'An illegal move out of a finished state cannot overwrite its result',
    gradedBy: ['check:illegal-transition-rejected'],
  },
  {
    section: 'acceptance',
    item: 'Nothing runs jobs in this lesson: a submitted job stays queued, and the doc says so',
    gradedBy: ['test:job-stays-queued', 'test:doc-states-lesson-limits'],
  },
  {
    section: 'acceptance',
    item: 'Nothing persists jobs in this lesson: a restart loses them, and the doc says so',
    gradedBy: ['check:restart-forgets-jobs', 'test:doc-states-lesson-limits'],
  },

  // Troubleshooting
  {
    section: 'troubleshooting',
    item: 'The client shows "export ready" after the 202: the 202 says queued with no result; only a GET saying succeeded does',
    gradedBy: ['test:202-says-accepted-not-done'],
  },
  {
    section: 'troubleshooting',
    item: 'Every accepted job is gone after a restart: jobs live in one process, expected in this lesson',
    gradedBy: ['check:restart-forgets-jobs', 'test:each-process-own-memory'],
  },
  {
    section: 'troubleshooting',
    item: 'A job stays queued forever: nothing executes jobs yet',
    gradedBy: ['test:job-stays-queued'],
  },
  {
    section: 'troubleshooting',
    item: 'EADDRINUSE on start: another process holds the port; one line says so',
    gradedBy: ['test:port-in-use-one-line'],
  },
  {
    section: 'troubleshooting',
    item: 'A body sent without Content-Type: application/json gets 415',
    gradedBy: ['check:bad-bodies-4xx'],
  },
  {
    section: 'troubleshooting',
    item: 'A typo such as productIds gets a 422 naming the unknown key',
    gradedBy: ['test:typo-field-named'],
  },
  {
    section: 'troubleshooting',
    item: 'An id that is not a UUID gets 400 invalid-id',
    gradedBy: ['check:malformed-id-400'],
  },
  {
    section: 'troubleshooting',
    item: 'A bad PORT stops the server with a line naming PORT and its bounds',
    gradedBy: ['test:bad-port-refused'],
  },

  // The exercise
  {
    section: 'exercise',
    item: 'A terminal flag on every job view: false for queued and running, true for the end states',
    gradedBy: ['test:exercise-terminal-flag'],
  },
  {
    section: 'exercise',
    item: 'The flag is computed from the transition table, not from a second hard-coded list',
    gradedBy: ['test:exercise-terminal-follows-table'],
  },

  // Deep dive: where our Node version goes further than the course
  {
    section: 'deep-dive',
    item: 'A repeated product id is kept once, in first-seen order; the 1-100 limit counts distinct ids',
    gradedBy: ['test:schema-limit-counts-distinct', 'test:store-dedupes-product-ids', 'test:hostile-duplicate-ids'],
  },
  {
    section: 'deep-dive',
    item: 'A path or body that does not decode gets a 4xx JSON answer and one short log line, never a 500',
    gradedBy: ['test:hostile-bad-percent-encoding', 'test:hostile-bad-content-encoding'],
  },
  {
    section: 'deep-dive',
    item: 'An empty or null body gets a message naming that problem',
    gradedBy: ['test:hostile-empty-or-null-body', 'test:schema-names-empty-and-null'],
  },
  {
    section: 'deep-dive',
    item: 'Oversize bodies, wrong types and ids that climb out of a folder get 4xx JSON answers',
    gradedBy: [
      'check:bad-bodies-4xx',
      'test:hostile-oversize',
      'test:hostile-wrong-types',
      'test:hostile-path-traversal',
    ],
  },
  {
    section: 'deep-dive',
    item: 'A wrong method on a known path gets 405 with an Allow header; an unknown path, /docs included, a JSON 404',
    gradedBy: ['test:hostile-wrong-method', 'test:hostile-unknown-path'],
  },
  {
    section: 'deep-dive',
    item: '200 requests at once are all answered, none with a 5xx',
    gradedBy: ['test:hostile-flood'],
  },
  {
    section: 'deep-dive',
    item: 'An async handler that throws reaches the error middleware: 500, logged, no details leaked',
    gradedBy: ['test:async-error-500'],
  },
]);
