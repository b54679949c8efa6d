// Lesson 08's checklist from the course, in our words, and what grades each item:
// `check:<id>` is a verify check (scripts/checks.ts), `test:<id>` a vitest test tagged
// [test:<id>] in its title. `pnpm lab coverage 08` checks every id and writes the table
// in docs/08-broker-worker.md from this list.
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  // ---- learning checks
  {
    section: 'learning-check',
    item: "An authenticated PING gets PONG from the lab's own broker port; without the password it is refused",
    gradedBy: ['check:broker-answers-with-password', 'check:broker-refuses-anonymous-client'],
  },
  {
    section: 'learning-check',
    item: "The worker's list of registered job names includes products.export",
    gradedBy: ['check:worker-registers-export-job'],
  },
  {
    section: 'learning-check',
    item: "The producer gets the job_id back, and the worker's result has rows 1 and a relative file path",
    gradedBy: ['check:job-id-is-business-id'],
  },
  {
    section: 'learning-check',
    item: 'The JSON file under artifacts/ equals the submitted snapshot',
    gradedBy: ['check:artifact-equals-snapshot'],
  },
  {
    section: 'learning-check',
    item: 'Submitting does not wait for the result: the submit returns once Redis holds the job',
    gradedBy: ['test:submit-returns-without-waiting', 'check:drill-stopped-worker'],
  },

  // ---- implementation decisions
  {
    section: 'implementation-decision',
    item: "Nothing that answers a request blocks on a job's result; only the command-line acceptance script waits",
    gradedBy: ['test:submit-returns-without-waiting', 'test:dashboard-flood-bounded'],
  },
  {
    section: 'implementation-decision',
    item: 'The worker writes only inside the lab folder, under a checked and canonical (lower-case) job id',
    gradedBy: [
      'test:artifact-id-checked-before-path',
      'test:artifact-name-canonical',
      'test:one-job-per-uuid-spelling',
    ],
  },
  {
    section: 'implementation-decision',
    item: 'In production the file goes to storage every worker and reader can reach; a local folder is for one machine',
    docOnly:
      'every process of the lab runs on one machine, so there is no second machine whose view of the folder could be observed',
  },
  {
    section: 'implementation-decision',
    item: 'Broker persistence is set and checked on its own: appendonly yes, maxmemory-policy noeviction',
    gradedBy: ['check:broker-persists-never-evicts'],
  },
  {
    section: 'implementation-decision',
    item: 'Result lifetime is set and checked on its own: an hour after success, a day after failure, removed lazily',
    gradedBy: ['check:result-kept-one-hour', 'check:removal-is-lazy'],
  },
  {
    section: 'implementation-decision',
    item: 'Job state is read on its own, by id: waiting while no worker runs, completed once one does',
    gradedBy: ['check:drill-stopped-worker', 'test:lookup-pending-while-stopped'],
  },
  {
    section: 'implementation-decision',
    item: 'The task broker is a Redis of its own (own port, own password), apart from any cache',
    gradedBy: ['check:broker-answers-with-password', 'check:broker-refuses-anonymous-client'],
  },
  {
    section: 'implementation-decision',
    item: 'AOF everysec and noeviction narrow the loss window without closing it; durable state and an outbox recover later',
    docOnly:
      'the second of writes AOF everysec can lose needs an OS crash or power cut before the fsync; killing Redis loses nothing already written, so no run of the lab can show it',
  },

  // ---- the drill
  {
    section: 'drill',
    item: 'With only the worker stopped, a submit is accepted, the wait times out, and a new worker completes the same id',
    gradedBy: ['check:drill-stopped-worker', 'test:submit-wait-really-waits'],
  },

  // ---- acceptance
  {
    section: 'acceptance',
    item: 'Producer and worker run as separate processes and meet only through the broker',
    gradedBy: ['check:worker-registers-export-job', 'check:drill-stopped-worker'],
  },
  {
    section: 'acceptance',
    item: 'The file matches the input, and the job id traces the export from submit to file',
    gradedBy: ['check:artifact-equals-snapshot', 'check:job-id-is-business-id'],
  },
  {
    section: 'acceptance',
    item: 'The Redis result is a cache, not the source of truth: it is swept, and then reads like an id never submitted',
    gradedBy: ['check:removal-is-lazy', 'test:lookup-unknown-id'],
  },

  // ---- troubleshooting
  {
    section: 'troubleshooting',
    item: 'A job name no worker registered fails at once, naming what the worker handles, and is not retried',
    gradedBy: ['check:unknown-job-name-refused', 'test:unknown-name-not-retried'],
  },
  {
    section: 'troubleshooting',
    item: "A random or expired id reads 'unknown', which is not 'waiting'",
    gradedBy: ['test:lookup-unknown-id', 'check:removal-is-lazy'],
  },
  {
    section: 'troubleshooting',
    item: "A process on the host given the Compose address redis:6379 stops at once, naming the broker's real address",
    gradedBy: ['test:container-address-fails-clearly', 'test:worker-ready-on-lab-broker'],
  },
  {
    section: 'troubleshooting',
    item: "An old port typed by hand, where nothing listens, stops the worker at once, naming the lab's port",
    gradedBy: ['test:stale-port-fails-clearly'],
  },
  {
    section: 'troubleshooting',
    item: 'A client without the password from .env.tasks gets NOAUTH',
    gradedBy: ['check:broker-refuses-anonymous-client', 'check:broker-answers-with-password'],
  },

  // ---- the exercise
  {
    section: 'exercise',
    item: 'Stop the worker, submit, get an id but no result; start the worker and look the export up again by the same id',
    gradedBy: [
      'test:lookup-pending-while-stopped',
      'test:lookup-completed-same-id',
      'test:lookup-unknown-id',
      'test:lookup-failed-reason',
    ],
  },

  // ---- deep dive (the concept review)
  {
    section: 'deep-dive',
    item: 'Three roles run apart: the producer submits, the broker holds, the worker runs; the result store is short-lived',
    gradedBy: ['check:worker-registers-export-job', 'check:result-kept-one-hour'],
  },
  {
    section: 'deep-dive',
    item: 'A job name is a deployment contract: producer and worker must ship the same name',
    gradedBy: ['check:unknown-job-name-refused', 'check:worker-registers-export-job'],
  },
  {
    section: 'deep-dive',
    item: 'Waiting for a result is bounded: BullMQ listens on QueueEvents with a timer, which must stay under 2^31-1 ms',
    gradedBy: [
      'test:wait-over-timer-limit-refused',
      'test:timeout-over-timer-limit-refused',
      'test:submit-wait-really-waits',
    ],
  },
]);
