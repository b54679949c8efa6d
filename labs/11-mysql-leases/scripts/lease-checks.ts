// Lesson 11's lease checks: the course's lease script step by step, the races, the zombie,
// early duplicate deliveries and the frozen snapshot, against the real database.
// buildLeaseChecks(deps) builds them without starting anything; deps swap in broken
// parts (a claim without its conditions, a finish that ignores the token, ...) for the
// can-fail tests, or point them at a test's own database.
import { defineCheck, fail, outcome, pass, sharedScenario, SECOND, type Check } from '@tasks-lab/lab-kit';
import { readShortLeaseOptions, type LeaseOptionValues } from '../src/options.ts';
import {
  claimManyJobs,
  earlyDuplicates,
  frozenSnapshot,
  leaseScript,
  raceForOneJob,
  REAL_LEASE_PARTS,
  verifyDatabaseOnce,
  zombieHolder,
  type LeaseContext,
  type LeaseParts,
} from './lease-scenarios.ts';

export interface LeaseCheckDeps {
  /** Broken parts for the can-fail tests; the rest stay real. */
  leaseParts?: Partial<LeaseParts>;
  /** The database to run in (a test's fresh one). @defaultValue tasks_lab11_verify, recreated once per run */
  database?: string;
  /** @defaultValue the short timings (USE_COURSE_TIMINGS=1 forces the course's) */
  timings?: LeaseOptionValues;
}

const short = (token: string | undefined) => (token ? token.slice(0, 8) : 'none');

export function buildLeaseChecks(deps: LeaseCheckDeps = {}): Check[] {
  const timings = deps.timings ?? readShortLeaseOptions();
  const ctx: LeaseContext = {
    parts: { ...REAL_LEASE_PARTS, ...deps.leaseParts },
    timings,
    database: deps.database === undefined ? verifyDatabaseOnce : async () => deps.database!,
  };
  // The slow experiments wait for a lease (or a backoff) to pass; their limits grow with it.
  const waits = (leases: number) => 30 * SECOND + leases * (timings.leaseMs + timings.retryBackoffMs);
  const script = sharedScenario((signal) => leaseScript(ctx, signal));
  const during = (e: { timings: string }) => `(${e.timings})`;

  return [
    defineCheck({
      id: 'lease-script-first-claim',
      name: 'The first claim of a queued job gets a token, attempts 1 and a lease',
      timeoutMs: waits(1),
      scenario: script,
      judge: (e) => {
        const row = e.afterFirst;
        if (!e.first) return fail(`the first claim got nothing; the job is ${row?.status ?? 'missing'} ${during(e)}`);
        const leaseSeconds = row?.leaseUntil ? (row.leaseUntil.getTime() - row.updatedAt.getTime()) / 1000 : NaN;
        return outcome(
          e.first.attempts === 1 && row?.status === 'running' && row.leaseToken === e.first.token && row.attempts === 1,
          `token ${short(e.first.token)}, attempts ${e.first.attempts}; the row is ${row?.status} with token ${short(row?.leaseToken ?? undefined)}, attempts ${row?.attempts}, lease ${leaseSeconds.toFixed(1)} s ${during(e)}`,
        );
      },
    }),
    defineCheck({
      id: 'lease-script-second-claim-refused',
      name: 'A second claim while the lease is live gets nothing',
      timeoutMs: waits(1),
      scenario: script,
      judge: (e) => {
        if (!e.first) return fail(`the first claim got nothing ${during(e)}`);
        return e.secondClaim
          ? fail(
              `the second claim got token ${short(e.secondClaim.token)} (attempts ${e.secondClaim.attempts}) while ${short(e.first.token)} held the lease ${during(e)}`,
            )
          : pass(`the second claim got nothing; ${short(e.first.token)} still holds the job ${during(e)}`);
      },
    }),
    defineCheck({
      id: 'lease-script-expired-not-claimable',
      name: 'A running job whose lease has passed cannot be claimed directly',
      timeoutMs: waits(1),
      scenario: script,
      judge: (e) => {
        if (!e.first) return fail(`the first claim got nothing ${during(e)}`);
        return e.claimAfterExpiry
          ? fail(
              `after the lease passed, a claim took the running job directly: token ${short(e.claimAfterExpiry.token)}, attempts ${e.claimAfterExpiry.attempts} ${during(e)}`,
            )
          : pass(
              `after the lease passed, the claim got nothing: the job stays running until it is requeued ${during(e)}`,
            );
      },
    }),
    defineCheck({
      id: 'lease-script-old-token-refused',
      name: 'The old token cannot finish once its lease has passed',
      timeoutMs: waits(1),
      scenario: script,
      judge: (e) => {
        if (e.oldFinishAfterExpiry === undefined)
          return fail(`the script stopped before the old token tried to finish ${during(e)}`);
        return outcome(
          !e.oldFinishAfterExpiry,
          `finish with the expired token ${short(e.first?.token)}: ${e.oldFinishAfterExpiry ? 'PUBLISHED' : 'refused (0 rows)'} ${during(e)}`,
        );
      },
    }),
    defineCheck({
      id: 'lease-script-requeue-new-token',
      name: 'After the manual requeue, a new claim has attempts 2 and a new token',
      timeoutMs: waits(1),
      scenario: script,
      judge: (e) => {
        if (!e.requeued)
          return fail(`the requeue changed ${e.requeued === false ? '0 rows' : 'nothing (not reached)'} ${during(e)}`);
        if (!e.renewed) return fail(`requeued, but the new claim got nothing ${during(e)}`);
        const newToken = e.renewed.token !== e.first?.token;
        return outcome(
          e.renewed.attempts === 2 && newToken,
          `requeued; the new claim has attempts ${e.renewed.attempts} and token ${short(e.renewed.token)} (${newToken ? 'new' : 'THE OLD ONE'}; old ${short(e.first?.token)}) ${during(e)}`,
        );
      },
    }),
    defineCheck({
      id: 'lease-script-old-token-still-refused',
      name: 'The old token still cannot finish while the new holder works',
      timeoutMs: waits(1),
      scenario: script,
      judge: (e) => {
        if (e.oldFinishAfterNewClaim === undefined) return fail(`the script stopped before this step ${during(e)}`);
        return outcome(
          !e.oldFinishAfterNewClaim && !!e.renewed,
          `finish with the old token ${short(e.first?.token)} while ${short(e.renewed?.token)} holds a live lease: ${e.oldFinishAfterNewClaim ? 'PUBLISHED' : 'refused (0 rows)'} ${during(e)}`,
        );
      },
    }),
    defineCheck({
      id: 'lease-script-new-token-publishes',
      name: "The new token's artifact is published: succeeded, result_ref names it",
      timeoutMs: waits(1),
      scenario: script,
      judge: (e) => {
        if (!e.renewed || !e.newArtifact) return fail(`the script stopped before the new holder finished ${during(e)}`);
        const row = e.final;
        const ok =
          e.newFinish === true &&
          row?.status === 'succeeded' &&
          row.resultRef === e.newArtifact &&
          row.resultRef.includes(e.renewed.token);
        return outcome(
          ok,
          `finish with ${short(e.renewed.token)}: ${e.newFinish ? 'published' : 'refused'}; the row is ${row?.status}, result_ref ${row?.resultRef ? row.resultRef.split('/').pop() : 'null'} ${during(e)}`,
        );
      },
    }),
    defineCheck({
      id: 'twenty-claimers-one-token',
      name: '20 claimers of one job, released together, each on its own connection: exactly one gets a token',
      timeoutMs: 60 * SECOND,
      scenario: (signal) => raceForOneJob(ctx, signal, 20),
      judge: (e) => {
        const ok =
          e.tokens.length === 1 && e.failures.length === 0 && e.row?.attempts === 1 && e.row.leaseToken === e.tokens[0];
        return outcome(
          ok,
          `${e.tokens.length} of ${e.claimers} claimers got a token, ${e.failures.length} failed${e.failures[0] ? ` (${e.failures[0]})` : ''}; the row has attempts ${e.row?.attempts} (${e.timings})`,
        );
      },
    }),
    defineCheck({
      id: 'two-hundred-jobs-eight-claimers',
      name: '200 jobs, 8 claimers each given every id shuffled: every job is claimed exactly once',
      timeoutMs: 120 * SECOND,
      scenario: (signal) => claimManyJobs(ctx, signal, 200, 8),
      judge: (e) => {
        const counts = [...e.claimsPerJob.values()];
        const once = counts.filter((n) => n === 1).length;
        const never = counts.filter((n) => n === 0).length;
        const twice = counts.filter((n) => n > 1).length;
        const attemptsOk = [...e.attemptsPerJob.values()].every((n) => n === 1);
        return outcome(
          once === e.jobs && e.failures.length === 0 && attemptsOk,
          `${once} of ${e.jobs} jobs claimed once, ${never} never, ${twice} more than once; ${e.failures.length} claim errors${e.failures[0] ? ` (${e.failures[0]})` : ''} (${e.claimers} claimers; ${e.timings})`,
        );
      },
    }),
    defineCheck({
      id: 'zombie-changes-nothing',
      name: 'A holder paused past its lease resumes: its finish changes 0 rows and its artifact is not the result',
      timeoutMs: waits(1),
      scenario: (signal) => zombieHolder(ctx, signal),
      judge: (e) => {
        if (!e.zombie || !e.successor)
          return fail(
            `the experiment did not get two holders (zombie ${short(e.zombie?.token)}, successor ${short(e.successor?.token)}) (${e.timings})`,
          );
        const unchanged = JSON.stringify(e.beforeZombieFinish) === JSON.stringify(e.afterZombieFinish);
        const result = e.final?.resultRef ?? null;
        const ok =
          e.zombieFinish === false &&
          unchanged &&
          e.successorFinish === true &&
          result === e.successorArtifact &&
          result !== e.zombieArtifact;
        return outcome(
          ok,
          `the zombie ${short(e.zombie.token)} finished ${e.zombieFinish ? 'and PUBLISHED' : 'with 0 rows'}, the row ${unchanged ? 'unchanged' : 'CHANGED'}; ` +
            `the successor ${short(e.successor.token)} ${e.successorFinish ? 'published' : 'was refused'}; result_ref names ${result?.includes(e.successor.token) ? "the successor's" : result?.includes(e.zombie.token) ? "THE ZOMBIE'S" : 'no'} artifact (${e.timings})`,
        );
      },
    }),
    defineCheck({
      id: 'early-duplicates-claim-nothing',
      name: 'Deliveries before next_attempt_at claim nothing; the first one after it claims',
      timeoutMs: waits(2),
      scenario: (signal) => earlyDuplicates(ctx, signal),
      judge: (e) => {
        if (!e.requeued) return fail(`the job could not be requeued after its lease passed (${e.timings})`);
        const ok = e.earlyDeliveries > 0 && e.earlyClaims === 0 && e.dueClaim?.attempts === 2;
        return outcome(
          ok,
          `${e.earlyClaims} of ${e.earlyDeliveries} deliveries before next_attempt_at claimed the job; after it, ${e.dueClaim ? `a claim got attempts ${e.dueClaim.attempts}` : 'no claim succeeded'} (${e.timings})`,
        );
      },
    }),
    defineCheck({
      id: 'snapshot-frozen',
      name: 'Editing a product after submission does not change what the job exports',
      timeoutMs: 30 * SECOND,
      scenario: (signal) => frozenSnapshot(ctx, signal),
      judge: (e) => {
        const same = (s: unknown) => JSON.stringify(s) === JSON.stringify(e.submitted);
        const ok = same(e.claimed) && same(e.stored);
        return outcome(
          ok,
          `product renamed to "${e.edited.name}", price ${e.submitted.price_cents} -> ${e.edited.price_cents}; the claim exports "${e.claimed?.name}" at ${e.claimed?.price_cents}, the row holds "${e.stored?.name}" at ${e.stored?.price_cents} (${e.timings})`,
        );
      },
    }),
  ];
}
