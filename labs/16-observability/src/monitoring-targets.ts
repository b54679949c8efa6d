// Lesson 16's first decision, as settings: the targets /monitoring and /metrics judge the pipeline
// against (starting and completing a job, per queue) and lesson 12's second (an outbox event that
// stays unsent this long is an alert). The course names no value for these; ours are set from its
// timers (docs/16-observability.md, "Alerts and latency targets"). prometheus/alerts.yml is rendered
// from the defaults (`pnpm alerts`), so the rule file and /monitoring cannot disagree.
import { defineOptions, durationMs, type ReadOptions, wholeNumber } from '@tasks-lab/lab-kit';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What /monitoring and /metrics judge against: lesson 12's second decision (an event that stays
 * unsent is an alert) and lesson 16's first (targets for accepting, starting and completing; the
 * recovery budgets are src/matrix/budget.ts). The course names no value for these; ours are set
 * from its timers (docs/16-observability.md, "Alerts and latency targets").
 */
export const MONITORING_OPTIONS = defineOptions({
  /**
   * The oldest unsent outbox event is an alert once it is older than this. Above the publish path's
   * recovery budget (lesson 12's 30 s claim + 5 s poll + 15 s allowance = 50 s): a healthy publisher
   * that lost one send has sent it again by then. prometheus/alerts.yml is rendered from this default.
   * @defaultValue 60000 (60 s)
   */
  unpublishedAlertMs: durationMs('UNPUBLISHED_ALERT_MS', 60_000, { min: 1000, max: DAY_MS }),
  /**
   * The p95 of submit -> first claim, per queue, must be within this; so must the oldest job still
   * waiting for its first claim. Lesson 15's unclaimed threshold (60 s) is set from it: a job that
   * waited longer is treated as lost and woken again.
   * @defaultValue 60000 (60 s)
   */
  startTargetMs: durationMs('START_TARGET_MS', 60_000, { min: 1000, max: DAY_MS }),
  /**
   * The p95 of submit -> terminal state, per queue, must be within this; so must the oldest job not
   * yet terminal. The course's 10-minute deadline: past it a job fails anyway (deadline_exceeded).
   * @defaultValue 600000 (10 min)
   */
  finishTargetMs: durationMs('FINISH_TARGET_MS', 600_000, { min: 1000, max: DAY_MS }),
  /**
   * The percentiles cover the jobs that reached the stage (first claim, terminal state) this recently.
   * Longer than the finish target, short enough that a fix shows within minutes.
   * @defaultValue 900000 (15 min)
   */
  latencyWindowMs: durationMs('LATENCY_WINDOW_MS', 900_000, { min: 1000, max: DAY_MS }),
  /**
   * At most this many rows per stage and read (the most recent ones): the percentiles are computed
   * in TypeScript from a bounded set, and a read says when it reached the bound.
   * @defaultValue 5000
   */
  latencyRowLimit: wholeNumber('LATENCY_ROW_LIMIT', 5000, { min: 10, max: 100_000 }),
});
export type MonitoringSettings = ReturnType<typeof MONITORING_OPTIONS.defaults>;

/** The course-scale values of MONITORING_OPTIONS (prometheus/alerts.yml is rendered from these). */
export const MONITORING_DEFAULTS: Readonly<MonitoringSettings> = MONITORING_OPTIONS.defaults();

/** Reads MONITORING_OPTIONS (from the environment unless told otherwise): the API's /monitoring and /metrics. */
export function readMonitoringSettings(options: ReadOptions<MonitoringSettings> = {}): MonitoringSettings {
  return MONITORING_OPTIONS.read(options);
}
