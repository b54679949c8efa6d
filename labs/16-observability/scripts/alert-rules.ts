// `pnpm alerts`: renders prometheus/alerts.yml and its promtool tests (prometheus/alerts.test.yml)
// from the alert threshold of src/monitoring-targets.ts (UNPUBLISHED_ALERT_MS: the default, or the
// environment's). The files in the repository are rendered from the defaults, and
// test/alert-rules.test.ts fails when they drift from them.
//
//   pnpm alerts                              the course-scale threshold (60 s)
//   UNPUBLISHED_ALERT_MS=120000 pnpm alerts  the rules for an API started with the same variable
//   promtool test rules prometheus/alerts.test.yml
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { runMain } from '@tasks-lab/lab-kit';
import { ALERT_RULES_FILE, ALERT_TESTS_FILE, renderAlertRules, renderAlertRuleTests } from '../src/alerts.ts';
import { readMonitoringSettings } from '../src/monitoring-targets.ts';

async function main(): Promise<void> {
  const settings = readMonitoringSettings();
  await mkdir(dirname(ALERT_RULES_FILE), { recursive: true });
  await writeFile(ALERT_RULES_FILE, renderAlertRules(settings));
  await writeFile(ALERT_TESTS_FILE, renderAlertRuleTests(settings));
  const shown = (path: string) => relative(process.cwd(), path);
  console.log(
    `wrote ${shown(ALERT_RULES_FILE)} and ${shown(ALERT_TESTS_FILE)}: an unsent event older than ${settings.unpublishedAlertMs / 1000} s is an alert`,
  );
}

runMain(import.meta.url, main);
