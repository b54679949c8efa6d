// Lesson 16's monitoring checks, judged on what a real database, a real HTTP server and a real
// folder showed:
//
//   The course's six monitoring queries answer "how many, how long, why" for jobs in known
//   states, and an age with nothing behind it is null, never 0.
//   GET /metrics serves the same numbers, the tables' and Redis's growth, no job id in any
//   label, and still answers (tasks_lab_up 0) when its sources are down.
//   Housekeeping deletes exactly what has outlived its retention, and nothing that has not.
//   The terminal-state check compares the artifact's VALUE with the snapshot, and never
//   trusts a file outside the artifacts folder.
//   GET /monitoring raises the outbox alert for an event unsent past UNPUBLISHED_ALERT_MS, and
//   not for a fresh one or one just under it (lesson 12's second decision).
//   GET /monitoring and GET /metrics compare each queue's start and finish percentiles with
//   their targets: one slow job is the p95 of its queue, over target, and no other queue's
//   (lesson 16's first decision).
//
// buildMonitoringChecks(deps) builds them without starting anything; deps swap in broken parts
// for the can-fail tests (test/monitoring-checks.can-fail.test.ts).
import { defineCheck, outcome, SECOND, type Check } from '@tasks-lab/lab-kit';
import { JOB_STATES } from '@tasks-lab/01-state-machine';
import { sampleValue, type MetricSample } from '../src/metrics.ts';
import { FAST_QUEUE, BULK_QUEUE } from '@tasks-lab/13-admission';
import type { LatencyReport, QueueLatency } from '../src/latency.ts';
import type { MonitoringSnapshot } from '../src/monitoring.ts';
import { readShortObservabilityOptions, type ObservabilityOptionValues } from '../src/options.ts';
import { MONITORING_DEFAULTS, type MonitoringSettings } from '../src/monitoring-targets.ts';
import {
  housekeeping,
  latencyTargets,
  metricsServed,
  outboxAlertRaised,
  monitoringQueries,
  REAL_MONITORING_PARTS,
  terminalState,
  type MonitoringContext,
  type MonitoringParts,
  type ScrapeSeen,
} from './monitoring-scenarios.ts';

export interface MonitoringCheckDeps {
  /** Broken parts for the can-fail tests; the rest stays real. */
  monitoringParts?: Partial<MonitoringParts>;
  /** @defaultValue the short timings, with the course's retentions (7 days, 30 days, 1 day of grace) */
  monitoringTimings?: ObservabilityOptionValues;
  /** The alert threshold and the latency targets. @defaultValue MONITORING_DEFAULTS (60 s, 60 s, 10 min: time moves by UPDATEs) */
  monitoringSettings?: MonitoringSettings;
}

const short = (id: string | undefined) => (id ? id.slice(0, 8) : 'none');
/** Every UUID in a text, cut to its first 8 digits: the problems name files by job id and token. */
const shortIds = (text: string) =>
  text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, (id) => `${id.slice(0, 8)}…`);
const age = (seconds: number | null | undefined) =>
  seconds === null ? 'null' : seconds === undefined ? 'no sample' : `${seconds.toFixed(1)} s`;
const counts = (record: Record<string, number>) =>
  Object.entries(record)
    .map(([key, n]) => `${key} ${n}`)
    .join(', ') || 'none';
const sameCounts = (a: Record<string, number>, b: Record<string, number>) => {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => (a[key] ?? 0) === (b[key] ?? 0));
};
const byReason = (snapshot: MonitoringSnapshot) =>
  Object.fromEntries(snapshot.failuresByReason.map((f) => [f.reason, f.failed]));
/** Two reads a moment apart: their ages may differ by the time between them. */
const AGE_TOLERANCE_S = 5;
const near = (a: number | null | undefined, b: number | null | undefined) =>
  typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= AGE_TOLERANCE_S;
/** What was seen, followed by what was expected when it is wrong. */
const seen = (ok: boolean, text: string, expected: string) => (ok ? text : `${text} (EXPECTED ${expected})`);

/** The empty database: every status at 0, every count 0, every age null. */
function emptyProblems(snapshot: MonitoringSnapshot): string[] {
  const problems: string[] = [];
  for (const status of JOB_STATES)
    if (snapshot.statusCounts[status] !== 0)
      problems.push(`${status} ${String(snapshot.statusCounts[status])} (EXPECTED 0)`);
  if (snapshot.unpublished.oldestAgeSeconds !== null)
    problems.push(`oldest unsent age ${age(snapshot.unpublished.oldestAgeSeconds)} (EXPECTED null, not 0)`);
  if (snapshot.queuedWithoutPending.oldestDispatchAgeSeconds !== null)
    problems.push(
      `oldest dispatch age ${age(snapshot.queuedWithoutPending.oldestDispatchAgeSeconds)} (EXPECTED null, not 0)`,
    );
  if (
    snapshot.unpublished.count !== 0 ||
    snapshot.expiredLeases !== 0 ||
    snapshot.queuedWithoutPending.count !== 0 ||
    snapshot.failuresByReason.length > 0
  )
    problems.push('a count is not 0 (EXPECTED 0)');
  if (snapshot.oldestActive.length > 0)
    problems.push(`${snapshot.oldestActive.length} active jobs listed (EXPECTED none)`);
  return problems;
}

/** The scrape's value of every monitoring number, against the reference snapshot. */
function scrapeProblems(seen: ScrapeSeen, reference: MonitoringSnapshot): string[] {
  const s = seen.samples;
  const problems: string[] = [];
  for (const status of JOB_STATES) {
    const value = sampleValue(s, 'tasks_lab_jobs', { status });
    if (value !== reference.statusCounts[status])
      problems.push(`jobs{${status}} ${String(value)} (EXPECTED ${reference.statusCounts[status]})`);
  }
  const pairs: [string, number | undefined, number][] = [
    ['outbox_unpublished', sampleValue(s, 'tasks_lab_outbox_unpublished'), reference.unpublished.count],
    ['expired_leases', sampleValue(s, 'tasks_lab_expired_leases'), reference.expiredLeases],
    [
      'queued_without_pending',
      sampleValue(s, 'tasks_lab_queued_without_pending'),
      reference.queuedWithoutPending.count,
    ],
  ];
  for (const [name, value, want] of pairs)
    if (value !== want) problems.push(`${name} ${String(value)} (EXPECTED ${want})`);
  for (const failure of reference.failuresByReason) {
    const value = sampleValue(s, 'tasks_lab_dead_letters', { reason: failure.reason });
    if (value !== failure.failed)
      problems.push(`dead_letters{${failure.reason}} ${String(value)} (EXPECTED ${failure.failed})`);
  }
  if (!near(sampleValue(s, 'tasks_lab_outbox_oldest_unpublished_seconds'), reference.unpublished.oldestAgeSeconds)) {
    problems.push(
      `oldest unsent ${age(sampleValue(s, 'tasks_lab_outbox_oldest_unpublished_seconds'))} (EXPECTED about ${age(reference.unpublished.oldestAgeSeconds)})`,
    );
  }
  return problems;
}

const upOf = (samples: readonly MetricSample[], source: string) => sampleValue(samples, 'tasks_lab_up', { source });

/** One queue of one stage of a latency report. */
const queueOf = (report: LatencyReport, stage: string, queue: string): QueueLatency | undefined =>
  report.stages.find((s) => s.stage === stage)?.queues.find((q) => q.queue === queue);
const secs = (value: number | null | undefined) => (value === null || value === undefined ? 'none' : `${value} s`);
const queueText = (q: QueueLatency | undefined) =>
  q
    ? `${q.jobs} jobs, p50 ${secs(q.p50)}, p95 ${secs(q.p95)}, p99 ${secs(q.p99)}, ${q.waiting} waiting: ${q.verdict}`
    : 'missing';

export function buildMonitoringChecks(deps: MonitoringCheckDeps = {}): Check[] {
  const ctx: MonitoringContext = {
    parts: { ...REAL_MONITORING_PARTS, ...deps.monitoringParts },
    timings: deps.monitoringTimings ?? readShortObservabilityOptions(),
    monitoring: deps.monitoringSettings ?? MONITORING_DEFAULTS,
  };
  const timeoutMs = 30 * SECOND;
  return [
    defineCheck({
      id: 'monitoring-queries-answer',
      name:
        "The course's six monitoring queries, on an empty database: every status 0 and every age null (not 0); then on one job per state: counts per status, " +
        "the oldest unsent event's age (120 s), one expired lease, failures per reason, one queued job without an unsent event aged by its last dispatch (90 s), the active jobs oldest first",
      timeoutMs,
      scenario: (signal) => monitoringQueries(ctx, signal),
      judge: (e) => {
        const emptyIssues = emptyProblems(e.empty);
        const f = e.full;
        const want = e.expected;
        const unsentAge = f.unpublished.oldestAgeSeconds;
        const dispatchAge = f.queuedWithoutPending.oldestDispatchAgeSeconds;
        const statusesOk = sameCounts(f.statusCounts, want.statusCounts);
        const unsentOk =
          f.unpublished.count === want.unpublished &&
          unsentAge !== null &&
          unsentAge >= want.unpublishedAgeSeconds &&
          unsentAge < want.unpublishedAgeSeconds + 60;
        const dispatchOk =
          f.queuedWithoutPending.count === want.queuedWithoutPending &&
          dispatchAge !== null &&
          dispatchAge >= want.dispatchAgeSeconds &&
          dispatchAge < want.dispatchAgeSeconds + 30;
        const failuresOk = sameCounts(byReason(f), want.failuresByReason);
        const activeIds = f.oldestActive.map((job) => job.id);
        const activeOk = activeIds.join() === want.activeOldestFirst.join();
        const ok =
          emptyIssues.length === 0 &&
          statusesOk &&
          unsentOk &&
          f.expiredLeases === want.expiredLeases &&
          failuresOk &&
          dispatchOk &&
          activeOk;
        return outcome(
          ok,
          `empty database: ${emptyIssues.length === 0 ? 'every status 0, every age null' : emptyIssues.join('; ')}. ` +
            `With rows: ${seen(statusesOk, `statuses ${counts(f.statusCounts)}`, counts(want.statusCounts))}; ` +
            `${seen(unsentOk, `unsent ${f.unpublished.count}, oldest ${age(unsentAge)} (aged ${want.unpublishedAgeSeconds} s)`, `${want.unpublished}, oldest ${want.unpublishedAgeSeconds} s or a little more`)}; ` +
            `${seen(f.expiredLeases === want.expiredLeases, `expired leases ${f.expiredLeases}`, String(want.expiredLeases))}; ` +
            `${seen(failuresOk, `failures ${counts(byReason(f))}`, counts(want.failuresByReason))}; ` +
            `${seen(dispatchOk, `queued without an unsent event ${f.queuedWithoutPending.count}, oldest dispatch ${age(dispatchAge)} ago (dispatched ${want.dispatchAgeSeconds} s ago)`, `${want.queuedWithoutPending}, aged by its last dispatch`)}; ` +
            `${seen(activeOk, `active oldest first ${activeIds.map(short).join(', ') || 'none'}`, want.activeOldestFirst.map(short).join(', '))}`,
        );
      },
    }),
    defineCheck({
      id: 'metrics-served',
      name:
        'GET /metrics on the real HTTP server (text/plain; version=0.0.4): on an empty database no age sample at all; with rows the same numbers as readMonitoring, ' +
        'table rows and bytes, the BullMQ keys of its prefix per queue, no job id (no UUID) anywhere though the keys hold them; with MySQL and Redis down still 200, tasks_lab_up 0 and no job counts',
      timeoutMs,
      scenario: (signal) => metricsServed(ctx, signal),
      judge: (e) => {
        const emptyAge = sampleValue(e.empty.samples, 'tasks_lab_outbox_oldest_unpublished_seconds');
        const emptyDispatch = sampleValue(e.empty.samples, 'tasks_lab_queued_without_pending_oldest_seconds');
        const emptyOk = e.empty.status === 200 && emptyAge === undefined && emptyDispatch === undefined;
        const f = e.full;
        const formatOk = f.status === 200 && /^text\/plain; version=0\.0\.4/.test(f.contentType ?? '');
        const numbers = scrapeProblems(f, e.reference);
        const tables = ['export_jobs', 'export_outbox'].filter(
          (table) =>
            sampleValue(f.samples, 'tasks_lab_table_rows', { table }) !== undefined &&
            (sampleValue(f.samples, 'tasks_lab_table_bytes', { table }) ?? 0) > 0,
        );
        const fastKeys = sampleValue(f.samples, 'tasks_lab_redis_keys', { prefix: e.prefix, queue: 'exports.fast' });
        const keysOk =
          (fastKeys ?? 0) > 0 &&
          sampleValue(f.samples, 'tasks_lab_redis_keys_scan_complete', { prefix: e.prefix }) === 1;
        const upOk = upOf(f.samples, 'mysql') === 1 && upOf(f.samples, 'redis') === 1;
        const uuids = [...e.empty.uuids, ...f.uuids, ...e.down.uuids];
        const downJobs = e.down.samples.filter((sample) => sample.name === 'tasks_lab_jobs').length;
        const downOk =
          e.down.status === 200 &&
          upOf(e.down.samples, 'mysql') === 0 &&
          upOf(e.down.samples, 'redis') === 0 &&
          downJobs === 0;
        const ok =
          emptyOk &&
          formatOk &&
          numbers.length === 0 &&
          tables.length === 2 &&
          keysOk &&
          upOk &&
          uuids.length === 0 &&
          downOk;
        const labels = [...new Set(f.samples.flatMap((sample) => Object.keys(sample.labels)))].sort().join(', ');
        return outcome(
          ok,
          `empty: ${seen(emptyOk, `${e.empty.status}, oldest unsent ${age(emptyAge)}, oldest dispatch ${age(emptyDispatch)}`, '200 and no age sample: null is not 0')}; ` +
            `with rows: ${seen(formatOk, `${f.status} ${f.contentType ?? 'no content type'}`, '200 text/plain; version=0.0.4')}, ` +
            `${numbers.length === 0 ? 'every monitoring number equals readMonitoring' : numbers.join('; ')}; ` +
            `${seen(tables.length === 2, `table gauges for ${tables.join(', ') || 'no table'}`, 'export_jobs and export_outbox')}; ` +
            `${seen(keysOk, `redis keys of exports.fast under the prefix ${String(fastKeys)}`, 'some, the SCAN complete')}; up ${String(upOf(f.samples, 'mysql'))}/${String(upOf(f.samples, 'redis'))}; ` +
            `label names: ${labels}; ${uuids.length === 0 ? 'no UUID in the text' : `UUIDs in the text: ${uuids.slice(0, 3).map(short).join(', ')} (EXPECTED none: ids go in logs, not labels)`}. ` +
            `Sources down: ${seen(downOk, `${e.down.status}, up mysql ${String(upOf(e.down.samples, 'mysql'))}, redis ${String(upOf(e.down.samples, 'redis'))}, ${downJobs} job samples`, '200, up 0 and 0, no job samples')}`,
        );
      },
    }),
    defineCheck({
      id: 'outbox-alert-raised',
      name:
        'GET /monitoring raises the outbox alert (lesson 12: events that stay unpublished) for an event unsent longer than UNPUBLISHED_ALERT_MS (60 s), and not for a fresh one ' +
        'or one 30 s under it; the gauge the Prometheus rule reads says the same (the age moved by a named UPDATE, not by waiting)',
      timeoutMs,
      scenario: (signal) => outboxAlertRaised(ctx, signal),
      judge: (e) => {
        const t = e.thresholdSeconds;
        const results = e.readings.map((r) => {
          const shouldFire = r.agedSeconds !== null && r.agedSeconds > t;
          const value = r.alert?.valueSeconds;
          // The age as made: a fresh event is a moment old; an aged one about as old as the UPDATE made it.
          const ageOk =
            r.agedSeconds === null ? typeof value === 'number' && value < AGE_TOLERANCE_S : near(value, r.agedSeconds);
          const ok =
            r.alert !== undefined &&
            r.alert.firing === shouldFire &&
            r.alert.thresholdSeconds === t &&
            ageOk &&
            near(value, r.gaugeSeconds);
          const what = r.agedSeconds === null ? 'a fresh event' : `an event aged ${r.agedSeconds} s`;
          const text = r.alert
            ? `${what}: ${r.alert.firing ? 'firing' : 'not firing'} (age ${age(value)}, gauge ${age(r.gaugeSeconds)}, threshold ${r.alert.thresholdSeconds} s)`
            : `${what}: no outbox alert in /monitoring`;
          return {
            ok,
            text: seen(ok, text, `${shouldFire ? 'firing' : 'not firing'}, the age as made, threshold ${t} s`),
          };
        });
        return outcome(results.length === 3 && results.every((r) => r.ok), results.map((r) => r.text).join('; '));
      },
    }),
    defineCheck({
      id: 'latency-targets-compared',
      name:
        "GET /monitoring and GET /metrics compare each queue's p95 of submit -> first claim (target 60 s) and submit -> terminal (target 10 min) over the window with its target: " +
        "prompt jobs on exports.fast and exports.bulk are within target; one exports.fast job that finished 2 min past the target makes its queue's finish p95 over target, " +
        'while its median, its start and exports.bulk stay within',
      timeoutMs,
      scenario: (signal) => latencyTargets(ctx, signal),
      judge: (e) => {
        const fastBefore = {
          start: queueOf(e.before, 'start', FAST_QUEUE),
          finish: queueOf(e.before, 'finish', FAST_QUEUE),
        };
        const bulkBefore = queueOf(e.before, 'finish', BULK_QUEUE);
        const fastAfter = {
          start: queueOf(e.after, 'start', FAST_QUEUE),
          finish: queueOf(e.after, 'finish', FAST_QUEUE),
        };
        const bulkAfter = queueOf(e.after, 'finish', BULK_QUEUE);
        const prompt = e.promptJobs[FAST_QUEUE];
        const beforeOk =
          fastBefore.start?.verdict === 'within-target' &&
          fastBefore.finish?.verdict === 'within-target' &&
          fastBefore.finish.jobs === prompt &&
          bulkBefore?.verdict === 'within-target' &&
          bulkBefore.jobs === e.promptJobs[BULK_QUEUE];
        const f = fastAfter.finish;
        const tailOk =
          f?.verdict === 'over-target' &&
          f.jobs === prompt + 1 &&
          (f.p95 ?? 0) >= e.slowSeconds &&
          (f.p50 ?? Infinity) < e.targets.finishSeconds;
        const othersOk =
          fastAfter.start?.verdict === 'within-target' &&
          bulkAfter?.verdict === 'within-target' &&
          bulkAfter.jobs === e.promptJobs[BULK_QUEUE];
        const metricsOk =
          e.metrics.finishP95 === f?.p95 && e.metrics.overTarget === 1 && e.metrics.target === e.targets.finishSeconds;
        return outcome(
          beforeOk && tailOk && othersOk && metricsOk,
          `prompt jobs: ${seen(beforeOk, `exports.fast start ${queueText(fastBefore.start)}; finish ${queueText(fastBefore.finish)}; exports.bulk finish ${queueText(bulkBefore)}`, 'every one within target')}. ` +
            `With one exports.fast job taking ${e.slowSeconds} s: ${seen(tailOk, `exports.fast finish ${queueText(f)}`, `over target (${e.targets.finishSeconds} s) by its p95, its p50 within`)}; ` +
            `${seen(othersOk, `exports.fast start ${queueText(fastAfter.start)}; exports.bulk finish ${queueText(bulkAfter)}`, 'both within target')}; ` +
            `/metrics: ${seen(metricsOk, `finish p95 ${secs(e.metrics.finishP95)}, over_target ${String(e.metrics.overTarget)}, target ${secs(e.metrics.target)}`, `the same p95, over_target 1, target ${e.targets.finishSeconds} s`)}`,
        );
      },
    }),
    defineCheck({
      id: 'housekeeping-prunes-only-expired',
      name:
        'One housekeeping pass with the course-scale retentions (7 days of sent events, 30 of terminal jobs, 1 day of grace), 2 rows per statement: old sent events, old terminal jobs ' +
        "(their events, slot, dead letter) and old unreferenced files go; a recent sent event, an unsent old one, a job's first event, a running job, a recent job, " +
        'a failed job a replay names, a referenced artifact and a fresh unreferenced one stay',
      timeoutMs,
      scenario: (signal) => housekeeping(ctx, signal),
      judge: (e) => {
        const wrong = e.items.filter((item) => item.actual !== item.expected);
        const r = e.report;
        const x = e.expectedReport;
        const reportOk =
          r.outboxDeleted === x.outboxDeleted &&
          r.jobsDeleted === x.jobsDeleted &&
          r.artifactsDeleted === x.artifactsDeleted;
        const deleted = e.items.filter((item) => item.actual === 'deleted' && item.expected === 'deleted').length;
        const kept = e.items.filter((item) => item.actual === 'kept' && item.expected === 'kept').length;
        return outcome(
          wrong.length === 0 && reportOk,
          `${deleted} expired items deleted, ${kept} others kept` +
            (wrong.length > 0
              ? `; WRONG: ${wrong.map((item) => `${item.what}: ${item.actual} (EXPECTED ${item.expected})`).join('; ')}`
              : '') +
            `; report: ${seen(reportOk, `${r.outboxDeleted} events, ${r.jobsDeleted} jobs, ${r.artifactsDeleted} files deleted in ${r.statements} DELETE transactions`, `${x.outboxDeleted}, ${x.jobsDeleted}, ${x.artifactsDeleted}`)}`,
        );
      },
    }),
    defineCheck({
      id: 'terminal-state-matches-artifact',
      name:
        "The course's verify_terminal by value: a job exported by lesson 15's delivery is verified, and still is with its file rewritten with other key order and indent; " +
        'one changed price is a mismatch; a failed job is terminal without an artifact; a result_ref leading outside the artifacts folder (../ or a symlink) is a problem, not a pass',
      timeoutMs,
      scenario: (signal) => terminalState(ctx, signal),
      judge: (e) => {
        const results = e.cases.map((c) => {
          const mentions =
            c.problemMentions === undefined || c.verdict.problems.some((p) => p.includes(c.problemMentions!));
          return { c, ok: c.verdict.verdict === c.expected && mentions };
        });
        const [first, second] = e.cases;
        const shaDiffers =
          first?.verdict.artifactSha256 !== undefined &&
          second?.verdict.artifactSha256 !== undefined &&
          first.verdict.artifactSha256 !== second.verdict.artifactSha256;
        const ok = results.every((r) => r.ok) && shaDiffers;
        return outcome(
          ok,
          shortIds(
            results
              .map(({ c, ok: caseOk }) => {
                const problems = c.verdict.problems.length > 0 ? ` [${c.verdict.problems.join('; ')}]` : '';
                return `${c.name}: ${c.verdict.verdict}${problems}${caseOk ? '' : ` (EXPECTED ${c.expected}${c.problemMentions ? `, naming "${c.problemMentions}"` : ''})`}`;
              })
              .join('; '),
          ) +
            `; sha256 ${short(first?.verdict.artifactSha256)} -> ${short(second?.verdict.artifactSha256)}${shaDiffers ? '' : ' (EXPECTED a new sha256 for new bytes)'}`,
        );
      },
    }),
  ];
}
