// Lesson 03's checklist from the course, in our own words, and what grades each item:
// `check:<id>` is a verify check (scripts/checks.ts), `test:<id>` a vitest test tagged
// [test:<id>] in its title. `pnpm lab coverage 03` checks every reference exists and
// writes the table in docs/03-background-tasks.md from this list.
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  // Learning checks
  {
    section: 'learning-check',
    item: 'The short export runs after the response, and polling ends at succeeded',
    gradedBy: ['check:export-runs-after-202'],
  },
  {
    section: 'learning-check',
    item: 'The registry demo prints cleanup and keeps no running task',
    gradedBy: ['test:registry-demo-prints-cleanup', 'check:slow-task-cancelled-after-grace'],
  },
  {
    section: 'learning-check',
    item: 'A restart loses the in-memory task, and nothing presents that as recoverable',
    gradedBy: ['check:kill-loses-job', 'test:doc-says-not-a-queue'],
  },

  // Implementation decisions
  {
    section: 'implementation-decision',
    item: 'Short work that may be lost can stay in the API process, started through a registry',
    gradedBy: ['check:export-runs-after-202', 'check:failure-becomes-failed-job'],
  },
  {
    section: 'implementation-decision',
    item: "A user's export must not rely on in-process background work alone",
    gradedBy: ['check:kill-loses-job'],
  },
  {
    section: 'implementation-decision',
    item: 'On shutdown the entrance closes first: no new request, no new task',
    gradedBy: ['test:drain-closes-entrance-first', 'test:no-start-after-shutdown'],
  },
  {
    section: 'implementation-decision',
    item: 'Then running tasks get a bounded time: finish within the grace, or be cancelled and cleaned up',
    gradedBy: [
      'check:slow-task-cancelled-after-grace',
      'check:quick-task-finishes-in-grace',
      'check:sigterm-drains-export',
    ],
  },
  {
    section: 'implementation-decision',
    item: 'The real guarantee is left to a durable system: a SIGKILL runs no shutdown code at all',
    gradedBy: ['check:kill-loses-job'],
  },

  // The drill
  {
    section: 'drill',
    item: 'Make the export slow, kill the server, restart it: the old id answers 404, nothing recovers it',
    gradedBy: ['check:kill-loses-job'],
  },

  // Acceptance
  {
    section: 'acceptance',
    item: 'Task references are released: 0 remain after success, failure and cancellation',
    gradedBy: [
      'check:failure-becomes-failed-job',
      'check:slow-task-cancelled-after-grace',
      'check:quick-task-finishes-in-grace',
    ],
  },
  {
    section: 'acceptance',
    item: 'Every failure is observed: a failed job and a log line, never an unhandled rejection',
    gradedBy: ['check:failure-becomes-failed-job', 'check:unobserved-rejection-crashes'],
  },
  {
    section: 'acceptance',
    item: 'A failure shows on the job, apart from the 202 the request already got',
    gradedBy: ['test:failure-shown-on-job-not-http'],
  },
  {
    section: 'acceptance',
    item: 'In-process background work is never described as a durable queue',
    gradedBy: ['test:doc-says-not-a-queue', 'check:kill-loses-job'],
  },

  // Troubleshooting
  {
    section: 'troubleshooting',
    item: 'The client got 202 and the error shows only in the server terminal: record it on the job as failed, with the job id in the log',
    gradedBy: ['test:failure-shown-on-job-not-http', 'test:failure-logged-with-job-id'],
  },
  {
    section: 'troubleshooting',
    item: 'A rejection nobody observes crashes Node (the course\'s "Task exception was never retrieved"): hand every task to the registry',
    gradedBy: ['check:unobserved-rejection-crashes'],
  },
  {
    section: 'troubleshooting',
    item: 'EADDRINUSE on start: an earlier server holds the port; one line says so',
    gradedBy: ['test:port-in-use-one-line'],
  },
  {
    section: 'troubleshooting',
    item: 'A job stays queued: it came through POST /exports, which only accepts',
    gradedBy: ['test:accept-only-route-stays-queued'],
  },
  {
    section: 'troubleshooting',
    item: 'Shutdown waits the whole grace and reports remaining 1: the task ignores its AbortSignal',
    gradedBy: ['test:ignored-abort-reported-remaining'],
  },
  {
    section: 'troubleshooting',
    item: 'One Ctrl-C waits out the grace period; a second one exits at once with code 130',
    gradedBy: ['test:second-signal-exits-130'],
  },
  {
    section: 'troubleshooting',
    item: 'A zero or non-numeric timing stops the server with a line naming the variable and its bounds',
    gradedBy: ['test:bad-timing-refused'],
  },

  // The exercise
  {
    section: 'exercise',
    item: 'A task that throws after 100 ms: the failure is recorded and logged with the job id, the job is failed, the task leaves the set',
    gradedBy: ['test:exercise-observe-failure', 'test:exercise-success-leaves-nothing'],
  },

  // Deep dive: where our Node version goes further than the course
  {
    section: 'deep-dive',
    item: 'Cancelling is a request: an abort while the running write is in flight stops the work before it starts',
    gradedBy: ['test:cancel-before-work-starts'],
  },
  {
    section: 'deep-dive',
    item: 'POST /exports/background meets hostile input as lesson 01 does: 4xx JSON answers, 405 with Allow, no 5xx under a flood',
    gradedBy: ['test:hostile-input-battery'],
  },
]);
