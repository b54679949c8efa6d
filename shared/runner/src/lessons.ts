// The sixteen lessons of the course, in order. A lesson whose lab folder does not
// exist yet shows as "not available yet" in `pnpm lab`.
export interface Lesson {
  number: string;
  slug: string;
  title: string;
}

export const LESSONS: readonly Lesson[] = [
  { number: '01', slug: 'state-machine', title: 'Submit an export job, return 202 and a queryable status' },
  { number: '02', slug: 'bounded-async', title: 'Constrain async work with a group, a bounded queue and a timeout' },
  { number: '03', slug: 'background-tasks', title: 'Background work after the response vs. self-started tasks' },
  { number: '04', slug: 'worker-threads', title: 'Shared state between threads with a lock and a queue' },
  { number: '05', slug: 'thread-pool-io', title: 'Blocking I/O in a thread pool' },
  { number: '06', slug: 'process-pool', title: 'CPU-bound export in a process pool' },
  { number: '07', slug: 'choosing-executors', title: 'Choose coroutine, thread, process or task queue' },
  { number: '08', slug: 'broker-worker', title: 'Start a broker, a worker and a result cache' },
  { number: '09', slug: 'redelivery', title: 'Acknowledgement, redelivery and idempotent output' },
  { number: '10', slug: 'retries', title: 'Retries with backoff, jitter and a total budget' },
  { number: '11', slug: 'mysql-leases', title: 'Job state and leases in MySQL' },
  { number: '12', slug: 'outbox', title: 'Transactional outbox' },
  { number: '13', slug: 'admission', title: 'Admission limit and fast/bulk queues' },
  { number: '14', slug: 'schedule-slots', title: 'Durable time slots for periodic runs' },
  { number: '15', slug: 'recovery', title: 'Graceful exit, cancellation, failure isolation and recovery' },
  { number: '16', slug: 'observability', title: 'Fault injection and observability acceptance' },
];

/** Accepts "3", "03" or "03-background-tasks"; returns the lesson or undefined. */
export function findLesson(arg: string): Lesson | undefined {
  const digits = /^(\d{1,2})(?:-.*)?$/.exec(arg.trim())?.[1];
  if (digits === undefined) return undefined;
  const number = digits.padStart(2, '0');
  return LESSONS.find((lesson) => lesson.number === number);
}
