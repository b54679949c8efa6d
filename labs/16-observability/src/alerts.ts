// Lesson 12's second decision, "alert on events that stay unpublished", in two places that must
// agree: GET /monitoring evaluates the alert itself (outboxAlert), and Prometheus evaluates the
// rule file prometheus/alerts.yml against GET /metrics. Both fire when the oldest unsent event
// is older than UNPUBLISHED_ALERT_MS, strictly, and neither fires when nothing is unsent (the
// age is null, and the gauge has no sample: a 0 would read as "one was just sent").
//
// The threshold lives in one place, src/monitoring-targets.ts. The rule file and its promtool tests
// (prometheus/alerts.test.yml) are RENDERED from it by `pnpm alerts`; test/alert-rules.test.ts
// fails when the files on disk differ from what the defaults render, and runs
// `promtool test rules` on them. An operator who sets UNPUBLISHED_ALERT_MS for the API renders
// the rules with the same variable (`UNPUBLISHED_ALERT_MS=120000 pnpm alerts`).
//
// A second rule fires when a source of the scrape is down (tasks_lab_up 0): its gauges then have
// no sample, and a rule on a missing sample can never fire.
import { fileURLToPath } from 'node:url';
import type { MonitoringSnapshot } from './monitoring.ts';
import type { MonitoringSettings } from './monitoring-targets.ts';

export const OUTBOX_ALERT = 'TasksLabOutboxUnpublishedTooLong';
export const SOURCE_DOWN_ALERT = 'TasksLabSourceDown';
/** The gauge the outbox rule reads (src/metrics.ts): no sample when nothing is unsent. */
export const OUTBOX_AGE_METRIC = 'tasks_lab_outbox_oldest_unpublished_seconds';

export const ALERT_RULES_FILE = fileURLToPath(new URL('../prometheus/alerts.yml', import.meta.url));
export const ALERT_TESTS_FILE = fileURLToPath(new URL('../prometheus/alerts.test.yml', import.meta.url));

/** One alert as /monitoring shows it. */
export interface AlertState {
  alert: string;
  firing: boolean;
  /** What the alert reads: the oldest unsent event's age; null when nothing is unsent. */
  valueSeconds: number | null;
  thresholdSeconds: number;
}

export type AlertSettings = Pick<MonitoringSettings, 'unpublishedAlertMs'>;

/** The outbox alert on a monitoring snapshot: firing when the oldest unsent event is older than the threshold. */
export function outboxAlert(snapshot: Pick<MonitoringSnapshot, 'unpublished'>, settings: AlertSettings): AlertState {
  const age = snapshot.unpublished.oldestAgeSeconds;
  const thresholdSeconds = settings.unpublishedAlertMs / 1000;
  return { alert: OUTBOX_ALERT, firing: age !== null && age > thresholdSeconds, valueSeconds: age, thresholdSeconds };
}

// ---- the Prometheus files ------------------------------------------------------------

/** A YAML string: JSON's double-quoted strings are YAML's too. */
const quoted = (text: string): string => JSON.stringify(text);

const outboxSummary = (t: number) => `An outbox event has waited more than ${t} s to be sent to the broker`;
const OUTBOX_DESCRIPTION =
  'The oldest unsent event is {{ $value }} s old. Is the publisher running (pnpm publisher)? Its lines, and last_error in export_outbox, say why a send failed.';
const SOURCE_DOWN_SUMMARY = 'GET /metrics could not read {{ $labels.source }}';
const SOURCE_DOWN_DESCRIPTION = 'The gauges read from it have no sample, so no alert built on them can fire.';

/** prometheus/alerts.yml for these settings. */
export function renderAlertRules(settings: AlertSettings): string {
  const t = settings.unpublishedAlertMs / 1000;
  return [
    "# Lesson 16's alerting rules, for a Prometheus that scrapes the API's GET /metrics.",
    '# Rendered by `pnpm alerts` from src/alerts.ts and src/monitoring-targets.ts (UNPUBLISHED_ALERT_MS): do not',
    '# edit by hand. test/alert-rules.test.ts compares this file with the defaults and runs',
    '# `promtool test rules prometheus/alerts.test.yml`.',
    'groups:',
    '  - name: tasks-lab-outbox',
    '    rules:',
    `      - alert: ${OUTBOX_ALERT}`,
    '        # No sample when nothing is unsent (null, never 0): nothing to fire on.',
    `        expr: ${OUTBOX_AGE_METRIC} > ${t}`,
    '        labels:',
    '          severity: warning',
    '        annotations:',
    `          summary: ${quoted(outboxSummary(t))}`,
    `          description: ${quoted(OUTBOX_DESCRIPTION)}`,
    `      - alert: ${SOURCE_DOWN_ALERT}`,
    '        expr: tasks_lab_up == 0',
    '        labels:',
    '          severity: warning',
    '        annotations:',
    `          summary: ${quoted(SOURCE_DOWN_SUMMARY)}`,
    `          description: ${quoted(SOURCE_DOWN_DESCRIPTION)}`,
    '',
  ].join('\n');
}

/**
 * prometheus/alerts.test.yml: promtool's unit tests of the rules. An event whose age crosses the
 * threshold one second at a time: no alert at the threshold itself, an alert one second past it;
 * nothing unsent (no sample): no alert; MySQL down: the source alert.
 */
export function renderAlertRuleTests(settings: AlertSettings): string {
  const t = settings.unpublishedAlertMs / 1000;
  const ages = [t - 2, t - 1, t, t + 1, t + 2].map((n) => String(Math.round(n * 1000) / 1000));
  const scrape = 'instance="api:8000",job="tasks-lab"';
  const outboxAt = (evalSeconds: number, firing: boolean) => [
    `      - eval_time: ${evalSeconds}s`,
    `        alertname: ${OUTBOX_ALERT}`,
    ...(firing
      ? [
          '        exp_alerts:',
          '          - exp_labels:',
          '              severity: warning',
          '              instance: api:8000',
          '              job: tasks-lab',
          '            exp_annotations:',
          `              summary: ${quoted(outboxSummary(t))}`,
          `              description: ${quoted(OUTBOX_DESCRIPTION.replace('{{ $value }}', ages[evalSeconds]!))}`,
        ]
      : ['        exp_alerts: []']),
  ];
  return [
    '# promtool unit tests of alerts.yml (`promtool test rules prometheus/alerts.test.yml`).',
    '# Rendered by `pnpm alerts` with alerts.yml, from the same threshold: do not edit by hand.',
    'rule_files:',
    '  - alerts.yml',
    'evaluation_interval: 1s',
    'tests:',
    `  - name: ${quoted(`an unsent event aged ${ages.join(', ')} s, one second apart: no alert up to ${t} s, an alert past it`)}`,
    '    interval: 1s',
    '    input_series:',
    `      - series: ${quoted(`${OUTBOX_AGE_METRIC}{${scrape}}`)}`,
    `        values: ${quoted(ages.join(' '))}`,
    '    alert_rule_test:',
    ...outboxAt(0, false),
    ...outboxAt(2, false),
    ...outboxAt(3, true),
    `  - name: ${quoted('nothing unsent: the age gauge has no sample, and nothing fires')}`,
    '    interval: 1s',
    '    input_series:',
    `      - series: ${quoted(`tasks_lab_outbox_unpublished{${scrape}}`)}`,
    `        values: ${quoted('0 0 0')}`,
    `      - series: ${quoted(`tasks_lab_up{${scrape},source="mysql"}`)}`,
    `        values: ${quoted('1 1 1')}`,
    '    alert_rule_test:',
    '      - eval_time: 2s',
    `        alertname: ${OUTBOX_ALERT}`,
    '        exp_alerts: []',
    '      - eval_time: 2s',
    `        alertname: ${SOURCE_DOWN_ALERT}`,
    '        exp_alerts: []',
    `  - name: ${quoted('MySQL down: tasks_lab_up{source="mysql"} is 0, the source alert fires')}`,
    '    interval: 1s',
    '    input_series:',
    `      - series: ${quoted(`tasks_lab_up{${scrape},source="mysql"}`)}`,
    `        values: ${quoted('1 0 0')}`,
    '    alert_rule_test:',
    '      - eval_time: 0s',
    `        alertname: ${SOURCE_DOWN_ALERT}`,
    '        exp_alerts: []',
    '      - eval_time: 1s',
    `        alertname: ${SOURCE_DOWN_ALERT}`,
    '        exp_alerts:',
    '          - exp_labels:',
    '              severity: warning',
    '              instance: api:8000',
    '              job: tasks-lab',
    '              source: mysql',
    '            exp_annotations:',
    `              summary: ${quoted(SOURCE_DOWN_SUMMARY.replace('{{ $labels.source }}', 'mysql'))}`,
    `              description: ${quoted(SOURCE_DOWN_DESCRIPTION)}`,
    '',
  ].join('\n');
}
