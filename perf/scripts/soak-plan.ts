// The soak's plan: which jobs are submitted when, which of them a client cancels, and which
// fault hits which process when. All of it comes from one seed, so a failing run can be run
// again with the same jobs and the same faults at the same moments (`pnpm soak -- --seed N`).
// The processes' own timing is real, so two runs of one seed interleave differently inside:
// the plan is exact, the schedule of the machine is not.
//
// Pure: no clock, no I/O. test/soak-plan.test.ts checks that a seed always gives the same plan
// and that every kind of fault is in every plan.

/** What the fault driver can do to the running pipeline. */
export const FAULT_KINDS = [
  'kill-worker', // SIGKILL a worker process (mid-job or idle); it is started again after `holdMs`
  'pause-worker', // SIGSTOP a worker for longer than the lease: its leases expire, then SIGCONT
  'kill-publisher', // SIGKILL a publisher (between claim and send, or anywhere); started again
  'kill-api', // SIGKILL the API: requests in flight get no answer; clients retry with their key
  'kill-scanner', // SIGKILL the recovery scanner; started again
  'freeze-broker', // SIGSTOP Redis for `holdMs`: every command hangs, then SIGCONT
  'stop-broker', // SIGKILL Redis: connections refused for `holdMs`; started again from its AOF
  'restart-database', // SIGKILL the database: connections refused for `holdMs`; started again (InnoDB crash recovery)
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface SoakProfile {
  name: 'ci' | 'manual';
  /** Jobs submitted over HTTP. */
  jobs: number;
  /** The submissions are spread evenly over this window (an open loop: faults do not slow the plan). */
  submitWindowMs: number;
  /** Requests in flight at most (a submission waits for a free client). */
  clients: number;
  /** Worker processes on exports.fast (each WORKER_CONCURRENCY 2), and on exports.bulk. */
  fastWorkers: number;
  bulkWorkers: number;
  publishers: number;
  /** Of every 100 jobs, how many are bulk (31+ products) and how many a client cancels. */
  bulkPercent: number;
  cancelPercent: number;
  /**
   * Of every 100 jobs, how many go through a second API whose deadline is SHORT_DEADLINE_MS: under
   * the faults some of them miss it, so every soak also runs the deadline and dead-letter path.
   */
  shortDeadlinePercent: number;
  /** The gate's limit: low enough that the backlog a fault builds up meets it. */
  admissionLimit: number;
  /** One fault starts every this many ms on average (the gaps are random, seeded). */
  meanFaultGapMs: number;
  /** The job's deadline: after the load, the soak waits for it plus a scan before it judges. */
  deadlineMs: number;
}

export const PROFILES: Readonly<Record<SoakProfile['name'], SoakProfile>> = {
  // CI: 500 jobs in 20 s with a fault every ~2 s (each of the 8 kinds at least once), then the
  // 10 s deadline and a scan of quiet: judged in under a minute on 2 cores.
  ci: {
    name: 'ci',
    jobs: 500,
    submitWindowMs: 20_000,
    clients: 24,
    fastWorkers: 2,
    bulkWorkers: 1,
    publishers: 2,
    bulkPercent: 5,
    cancelPercent: 5,
    shortDeadlinePercent: 5,
    admissionLimit: 40,
    meanFaultGapMs: 2000,
    deadlineMs: 10_000,
  },
  // By hand: 10,000 jobs over 5 minutes, a fault every ~3 s (about a hundred).
  manual: {
    name: 'manual',
    jobs: 10_000,
    submitWindowMs: 300_000,
    clients: 32,
    fastWorkers: 2,
    bulkWorkers: 1,
    publishers: 2,
    bulkPercent: 5,
    cancelPercent: 5,
    shortDeadlinePercent: 3,
    admissionLimit: 40,
    meanFaultGapMs: 3000,
    deadlineMs: 30_000,
  },
};

/** Products the soak's database has; a bulk job asks for more than the fast route's 30. */
export const SOAK_PRODUCTS = 45;
/** The deadline of the jobs sent to the second API: the shortest EXPORT_DEADLINE_MS allows. */
export const SHORT_DEADLINE_MS = 1000;

export interface PlannedSubmission {
  /** 0-based: the i-th job of the plan; its Idempotency-Key is built from it and the seed. */
  index: number;
  /** When it is sent, from the start of the load. */
  atMs: number;
  productIds: number[];
  /** When the client asks to cancel it, after its 202; undefined: never. */
  cancelAfterMs?: number;
  /** Sent to the API whose deadline is SHORT_DEADLINE_MS. */
  shortDeadline?: true;
}

export interface PlannedFault {
  /** 0-based order in the plan. */
  index: number;
  kind: FaultKind;
  /** Which process of its role (worker 0, 1, ...); 0 for the single ones. */
  target: number;
  /** From the start of the load. */
  atMs: number;
  /** How long the fault lasts before it is healed (the process restarted, the broker resumed, ...). */
  holdMs: number;
}

export interface SoakPlan {
  seed: number;
  profile: SoakProfile;
  submissions: PlannedSubmission[];
  faults: PlannedFault[];
}

/** mulberry32: a small, fast, seedable generator, good enough to pick faults (not for secrets). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const between = (random: () => number, min: number, max: number) => Math.round(min + random() * (max - min));

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The Idempotency-Key of the i-th submission of a seed: stable across re-runs of that seed. */
export const submissionKey = (seed: number, index: number) => `soak-${seed}-${index}`;

/** What one submission asks for: a few products (fast) or 31 to 45 (bulk), distinct, in a seeded order. */
function productsFor(random: () => number, bulk: boolean): number[] {
  const count = bulk ? between(random, 31, SOAK_PRODUCTS) : between(random, 1, 5);
  const all = Array.from({ length: SOAK_PRODUCTS }, (_, i) => i + 1);
  return shuffled(all, random).slice(0, count);
}

export function planSubmissions(profile: SoakProfile, random: () => number): PlannedSubmission[] {
  const gap = profile.submitWindowMs / profile.jobs;
  return Array.from({ length: profile.jobs }, (_, index) => {
    const bulk = random() * 100 < profile.bulkPercent;
    const cancel = random() * 100 < profile.cancelPercent;
    const shortDeadline = random() * 100 < profile.shortDeadlinePercent;
    return {
      index,
      atMs: Math.round(index * gap),
      productIds: productsFor(random, bulk),
      ...(cancel ? { cancelAfterMs: between(random, 0, 1500) } : {}),
      ...(shortDeadline ? { shortDeadline: true as const } : {}),
    };
  });
}

/** How long each kind holds, at most: a paused worker must outlast its lease (leaseMs is added). */
function holdFor(kind: FaultKind, random: () => number, leaseMs: number): number {
  switch (kind) {
    case 'pause-worker':
      return leaseMs + between(random, 500, 2000);
    case 'freeze-broker':
    case 'stop-broker':
    case 'restart-database':
      return between(random, 500, 3000);
    default:
      return between(random, 200, 1500);
  }
}

function targetsOf(kind: FaultKind, profile: SoakProfile): number {
  if (kind === 'kill-worker' || kind === 'pause-worker') return profile.fastWorkers + profile.bulkWorkers;
  if (kind === 'kill-publisher') return profile.publishers;
  return 1;
}

/**
 * The faults: the first eight are every kind once, in a seeded order (so every run meets each
 * kind), then seeded kinds until the submit window is over. One fault at a time per target, but
 * faults on different targets overlap (a worker killed while the broker is frozen).
 */
export function planFaults(profile: SoakProfile, random: () => number, leaseMs: number): PlannedFault[] {
  const faults: PlannedFault[] = [];
  const busyUntil = new Map<string, number>();
  const kinds = shuffled(FAULT_KINDS, random);
  let atMs = between(random, 500, profile.meanFaultGapMs);
  while (atMs < profile.submitWindowMs || faults.length < FAULT_KINDS.length) {
    const kind = kinds[faults.length] ?? FAULT_KINDS[Math.floor(random() * FAULT_KINDS.length)]!;
    const target = Math.floor(random() * targetsOf(kind, profile));
    const holdMs = holdFor(kind, random, leaseMs);
    // The broker's two faults share the broker; a worker's two faults share the worker.
    const key = `${kind.replace(/^(kill|pause|freeze|stop|restart)-/, '')}:${target}`;
    const start = Math.max(atMs, busyUntil.get(key) ?? 0);
    busyUntil.set(key, start + holdMs + 1000);
    faults.push({ index: faults.length, kind, target, atMs: start, holdMs });
    atMs += between(random, profile.meanFaultGapMs / 2, (profile.meanFaultGapMs * 3) / 2);
  }
  return faults.sort((a, b) => a.atMs - b.atMs || a.index - b.index).map((fault, index) => ({ ...fault, index }));
}

export function planSoak(seed: number, profile: SoakProfile, leaseMs: number): SoakPlan {
  // Two streams: changing the job mix must not move the faults, and the other way round.
  const submissions = planSubmissions(profile, seededRandom(seed));
  const faults = planFaults(profile, seededRandom(seed ^ 0x5eed), leaseMs);
  return { seed, profile, submissions, faults };
}

/** "kill-worker w1 at 3.2 s for 0.8 s": one fault, for the report and the progress lines. */
export function describeFault(fault: PlannedFault): string {
  const target = fault.kind.endsWith('worker')
    ? ` w${fault.target}`
    : fault.kind === 'kill-publisher'
      ? ` p${fault.target}`
      : '';
  return `${fault.kind}${target} at ${(fault.atMs / 1000).toFixed(1)} s${fault.holdMs > 0 ? ` for ${(fault.holdMs / 1000).toFixed(1)} s` : ''}`;
}
