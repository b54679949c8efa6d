// The outbox alert in its two places (src/alerts.ts): /monitoring's evaluation, and the
// Prometheus rule file shipped beside the metrics (prometheus/alerts.yml), tested with
// Prometheus's own promtool (`promtool test rules`: Debian's prometheus package). The files on
// disk must be what the threshold's default renders: one threshold, no drift.
//
// promtool is a system binary, not an npm package. CI (.ci/run) installs it where it may (root,
// apt-get) and sets TASKS_LAB_REQUIRE_PROMTOOL=1 (turbo passes TASKS_LAB_* through to the
// tests): there a missing promtool fails these tests; elsewhere they are skipped, saying what to
// install.
import { spawnSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALERT_RULES_FILE,
  ALERT_TESTS_FILE,
  OUTBOX_ALERT,
  outboxAlert,
  renderAlertRules,
  renderAlertRuleTests,
} from '../src/alerts.ts';
import { MONITORING_DEFAULTS } from '../src/monitoring-targets.ts';

/** promtool when it answers on the PATH, else undefined. */
const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' }).status === 0 ? 'promtool' : undefined;
const required = process.env.TASKS_LAB_REQUIRE_PROMTOOL === '1' || process.env.CI === 'true';
const INSTALL =
  'promtool is missing: install Prometheus (Debian/Ubuntu: sudo apt-get install --no-install-recommends prometheus; macOS: brew install prometheus)';
if (!promtool && !required) console.warn(`${INSTALL}; the promtool tests are skipped`);

function runPromtool(args: string[], cwd: string): { status: number | null; output: string } {
  if (!promtool) throw new Error(INSTALL);
  const run = spawnSync(promtool, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'tasks-lab16-alerts-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const unpublished = (oldestAgeSeconds: number | null) => ({
  unpublished: { count: oldestAgeSeconds === null ? 0 : 1, oldestAgeSeconds },
});

describe('the outbox alert', () => {
  it('When /monitoring evaluates it, Then nothing unsent and an event at the threshold do not fire; one past it does [test:outbox-alert-threshold]', () => {
    const t = MONITORING_DEFAULTS.unpublishedAlertMs / 1000;
    expect(outboxAlert(unpublished(null), MONITORING_DEFAULTS)).toEqual({
      alert: OUTBOX_ALERT,
      firing: false,
      valueSeconds: null,
      thresholdSeconds: t,
    });
    expect(outboxAlert(unpublished(0.2), MONITORING_DEFAULTS).firing).toBe(false);
    expect(outboxAlert(unpublished(t), MONITORING_DEFAULTS).firing).toBe(false);
    expect(outboxAlert(unpublished(t + 0.5), MONITORING_DEFAULTS).firing).toBe(true);
    expect(outboxAlert(unpublished(100), { unpublishedAlertMs: 120_000 }).firing).toBe(false);
  });

  it('When the rule files on disk are compared with what the default threshold renders, Then they are the same: the threshold lives in src/options.ts only [test:alert-rules-match-threshold]', async () => {
    expect(await readFile(ALERT_RULES_FILE, 'utf8'), 'prometheus/alerts.yml drifted: run pnpm alerts').toBe(
      renderAlertRules(MONITORING_DEFAULTS),
    );
    expect(await readFile(ALERT_TESTS_FILE, 'utf8'), 'prometheus/alerts.test.yml drifted: run pnpm alerts').toBe(
      renderAlertRuleTests(MONITORING_DEFAULTS),
    );
    expect(renderAlertRules(MONITORING_DEFAULTS)).toContain(
      `tasks_lab_outbox_oldest_unpublished_seconds > ${MONITORING_DEFAULTS.unpublishedAlertMs / 1000}\n`,
    );
    expect(renderAlertRules({ unpublishedAlertMs: 90_000 })).toContain(
      'tasks_lab_outbox_oldest_unpublished_seconds > 90\n',
    );
  });

  it.skipIf(!promtool && !required)(
    'When promtool checks and tests the shipped rules, Then they are valid, fire for an event aged past the threshold and not before, and the source-down rule fires [test:alert-rules-promtool]',
    () => {
      const dir = join(ALERT_RULES_FILE, '..');
      const checked = runPromtool(['check', 'rules', 'alerts.yml'], dir);
      expect(checked.status, checked.output).toBe(0);
      expect(checked.output).toMatch(/SUCCESS: 2 rules found/);
      const tested = runPromtool(['test', 'rules', 'alerts.test.yml'], dir);
      expect(tested.status, tested.output).toBe(0);
      expect(tested.output).toMatch(/SUCCESS/);
    },
  );

  it.skipIf(!promtool && !required)(
    'When the rule fires late (its threshold drifted 30 s up) or at the threshold itself (>=), Then the same promtool tests fail and name the alert [test:alert-rules-promtool-can-fail]',
    async () => {
      await copyFile(ALERT_TESTS_FILE, join(scratch, 'alerts.test.yml'));
      const t = MONITORING_DEFAULTS.unpublishedAlertMs / 1000;
      const shipped = renderAlertRules(MONITORING_DEFAULTS);
      const expr = `tasks_lab_outbox_oldest_unpublished_seconds > ${t}\n`;
      for (const wrong of [
        `tasks_lab_outbox_oldest_unpublished_seconds > ${t + 30}\n`,
        `tasks_lab_outbox_oldest_unpublished_seconds >= ${t}\n`,
      ]) {
        await writeFile(join(scratch, 'alerts.yml'), shipped.replace(expr, wrong));
        const tested = runPromtool(['test', 'rules', 'alerts.test.yml'], scratch);
        expect(tested.status, `${wrong.trim()}: ${tested.output}`).not.toBe(0);
        expect(tested.output).toMatch(new RegExp(`FAILED[\\s\\S]*alertname: ${OUTBOX_ALERT}`));
      }
    },
  );
});
