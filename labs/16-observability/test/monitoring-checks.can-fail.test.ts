// Every monitoring check must fail when a real part is broken: a monitor that turns a NULL age
// into 0 or forgets the empty states, metrics with a job id label or a scrape that fails with
// its sources, a housekeeping pass that ignores the retention or the grace, deletes each job's
// first event or keeps a zombie's file, a terminal check that compares text, trusts a file
// outside the folder or only looks for the file; an outbox alert that ignores its threshold or
// compares seconds with milliseconds; latency "percentiles" that are means or pool the queues.
// Each case runs the check's real scenario (a fresh database, a real HTTP server, a real folder).
import { describe } from 'vitest';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { buildMonitoringChecks, type MonitoringCheckDeps } from '../scripts/monitoring-checks.ts';
import type { MonitoringParts } from '../scripts/monitoring-scenarios.ts';
import {
  housekeepingDeletingFirstEvents,
  housekeepingIgnoringGrace,
  housekeepingIgnoringRetention,
  housekeepingKeepingZombieFiles,
  metricsFailingWhenASourceIsDown,
  metricsWithJobIdLabel,
  metricsWithZeroForNullAge,
  monitorAgingByCreation,
  monitorListingOnlyPresentStatuses,
  monitorWithNullAgesAsZero,
  terminalCheckingExistenceOnly,
  terminalComparingText,
  terminalIgnoringContainment,
} from './fixtures/broken-monitoring.ts';
import {
  alertComparingSecondsWithMilliseconds,
  alertOnAnyUnsentEvent,
  latencyPoolingQueues,
  latencyWithMeans,
} from './fixtures/broken-latency.ts';

const broken = (parts: Partial<MonitoringParts>) => (): MonitoringCheckDeps => ({ monitoringParts: parts });

describe('monitoring checks can fail', () => {
  const suite = canFailSuite(buildMonitoringChecks);

  suite.breaks(
    'monitoring-queries-answer',
    'the monitor parses the ages with Number() (NULL becomes 0)',
    broken({ readMonitoring: monitorWithNullAgesAsZero }),
    {
      observed: /oldest unsent age 0\.0 s \(EXPECTED null, not 0\)/,
    },
  );
  suite.breaks(
    'monitoring-queries-answer',
    'the monitor lists only the statuses GROUP BY returned',
    broken({ readMonitoring: monitorListingOnlyPresentStatuses }),
    {
      observed: /cancelled undefined \(EXPECTED 0\)/,
    },
  );
  suite.breaks(
    'monitoring-queries-answer',
    "the queued-without-pending age reads the job's creation, not its last dispatch",
    broken({ readMonitoring: monitorAgingByCreation }),
    {
      // Aged by its creation, the job is as old as the scenario's last few statements: under a
      // second on a quiet machine, more on a loaded one. Any age works; the dispatch's 90 s is what is missing.
      observed: /oldest dispatch \d+\.\d s ago \(dispatched 90 s ago\) \(EXPECTED 1, aged by its last dispatch\)/,
    },
  );
  suite.breaks('metrics-served', 'a gauge carries a job_id label', broken({ createMetrics: metricsWithJobIdLabel }), {
    observed: /UUIDs in the text.*EXPECTED none/,
  });
  suite.breaks(
    'metrics-served',
    'the oldest unsent age is set to 0 when nothing is unsent',
    broken({ createMetrics: metricsWithZeroForNullAge }),
    {
      observed: /oldest unsent 0\.0 s.*EXPECTED/,
    },
  );
  suite.breaks(
    'metrics-served',
    'the scrape fails as a whole when a source is down',
    broken({ createMetrics: metricsFailingWhenASourceIsDown }),
    {
      observed: /Sources down: 500.*EXPECTED/,
    },
  );
  suite.breaks(
    'outbox-alert-raised',
    'any unsent event is an alert (the threshold is ignored)',
    broken({ outboxAlert: alertOnAnyUnsentEvent }),
    {
      observed: /a fresh event: firing .*\(EXPECTED not firing/,
    },
  );
  suite.breaks(
    'outbox-alert-raised',
    'the age in seconds is compared with the threshold in milliseconds',
    broken({ outboxAlert: alertComparingSecondsWithMilliseconds }),
    {
      observed: /an event aged 90 s: not firing .*\(EXPECTED firing/,
    },
  );
  suite.breaks(
    'latency-targets-compared',
    "the 'p95' is the mean of the queue's durations",
    broken({ readLatency: latencyWithMeans }),
    {
      observed: /exports\.fast finish 10 jobs, p50 [\d.]+ s, p95 7\d(?:\.\d+)? s.*within-target \(EXPECTED over target/,
    },
  );
  suite.breaks(
    'latency-targets-compared',
    'one set of percentiles for all queues together',
    broken({ readLatency: latencyPoolingQueues }),
    {
      observed:
        /exports\.bulk finish 2 jobs, p50 [\d.]+ s, p95 720(?:\.\d+)? s.*over-target \(EXPECTED both within target/,
    },
  );
  suite.breaks(
    'housekeeping-prunes-only-expired',
    'the pass ignores the retentions',
    broken({ runHousekeeping: housekeepingIgnoringRetention }),
    {
      observed:
        /a sent event 1 minute old: deleted \(EXPECTED kept\).*a recent succeeded job: deleted \(EXPECTED kept\)/,
    },
  );
  suite.breaks(
    'housekeeping-prunes-only-expired',
    'the pass ignores the grace of unreferenced files',
    broken({ runHousekeeping: housekeepingIgnoringGrace }),
    {
      observed: /written just now \(its finish is yet to come\): deleted \(EXPECTED kept\)/,
    },
  );
  suite.breaks(
    'housekeeping-prunes-only-expired',
    'the outbox prune is one DELETE … ORDER BY … LIMIT',
    broken({ runHousekeeping: housekeepingDeletingFirstEvents }),
    {
      observed: /first event, sent 10 days ago \(its route\): deleted \(EXPECTED kept\)/,
    },
  );
  suite.breaks(
    'housekeeping-prunes-only-expired',
    'a file counts as referenced while its job exists',
    broken({ runHousekeeping: housekeepingKeepingZombieFiles }),
    {
      observed: /zombie's artifact .*: kept \(EXPECTED deleted\)/,
    },
  );
  suite.breaks(
    'terminal-state-matches-artifact',
    "the check compares the file's text",
    broken({ verifyTerminal: terminalComparingText }),
    {
      observed: /keys reversed and indented by 4: mismatch .*EXPECTED artifact-verified/,
    },
  );
  suite.breaks(
    'terminal-state-matches-artifact',
    'the check reads <dir>/<result_ref> without containment',
    broken({ verifyTerminal: terminalIgnoringContainment }),
    {
      observed: /outside the folder\): artifact-verified \(EXPECTED mismatch/,
    },
  );
  suite.breaks(
    'terminal-state-matches-artifact',
    'the check only looks for the file',
    broken({ verifyTerminal: terminalCheckingExistenceOnly }),
    {
      observed: /price changed: artifact-verified \(EXPECTED mismatch/,
    },
  );
  suite.coversEveryCheck();
});
