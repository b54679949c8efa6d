// Lesson 07's learning checks and fault drill. The experiments (scenarios.ts) run the
// real thing and return evidence; each check here only judges it. buildChecks(deps)
// lets the can-fail tests swap in a broken contract, a broken decision record, other
// labs or other sample files.
import { defineCheck, fail, outcome, pass, type Check } from '@tasks-lab/lab-kit';
import { WORK_KINDS, DECISION_RECORD, type DecisionRecord } from '../src/decision-record.ts';
import { EARLIER_LABS_FILE } from '../src/earlier-labs.ts';
import { MAX_MESSAGE_BYTES } from '../src/message-contract.ts';
import {
  probePrices,
  probeRoundTrip,
  probeSizeLimit,
  probeSmuggledFields,
  probeValidMessage,
  rerunEarlierLabs,
  reviewDecisionRecord,
  runCheckerDrill,
  type Attempt,
  type CheckerRun,
  type EarlierLabsRun,
  type RecordReview,
  type RoundTrip,
  type ScenarioDeps,
  type SizeProbe,
  type ValidMessageProbe,
} from './scenarios.ts';

export type CheckDeps = ScenarioDeps;

export function buildChecks(deps: CheckDeps = {}): Check[] {
  return [
    defineCheck({
      id: 'earlier-labs-passed',
      name: 'earlier labs 01-06 ran and passed, recorded in .earlier-labs.json',
      // Six real verify runs, one after another, on a busy 2-core machine.
      timeoutMs: 15 * 60_000,
      scenario: (signal) => rerunEarlierLabs(deps, signal),
      judge: judgeEarlierLabs,
    }),
    defineCheck({
      id: 'decision-record-backed',
      name: 'the decision record places four kinds of work, each backed by a measured result',
      scenario: () => reviewDecisionRecord(deps),
      judge: judgeDecisionRecord,
    }),
    defineCheck({
      id: 'queue-runtime-recorded',
      name: "the task queue's broker, worker, source of truth and delivery guarantee are recorded",
      scenario: () => (deps.record ?? DECISION_RECORD).queue,
      judge: judgeQueueRuntime,
    }),
    defineCheck({ id: 'valid-message-accepted', name: 'a job id plus a product snapshot passes the contract', scenario: () => probeValidMessage(deps), judge: judgeValidMessage }),
    defineCheck({
      id: 'credentials-refused',
      name: 'a message carrying credentials or a connection object is rejected',
      scenario: () => probeSmuggledFields(deps),
      judge: judgeSmuggledFields,
    }),
    defineCheck({
      id: 'oversize-refused',
      name: `a message of ${MAX_MESSAGE_BYTES} bytes or more is rejected, naming its size`,
      scenario: () => probeSizeLimit(deps),
      judge: judgeSizeLimit,
    }),
    defineCheck({ id: 'float-price-refused', name: 'a price that is not a whole number of cents is rejected', scenario: () => probePrices(deps), judge: judgePrices }),
    defineCheck({ id: 'round-trip-exact', name: 'the contract round-trips: decode(encode(m)) equals m, byte for byte', scenario: () => probeRoundTrip(deps), judge: judgeRoundTrip }),
    defineCheck({
      id: 'checker-script-drill',
      name: 'drill: pnpm check:message accepts good.json and refuses each bad sample with exit 1',
      // Four real processes in a row; each tsx start can take seconds on a busy machine.
      timeoutMs: 3 * 60_000,
      scenario: (signal) => runCheckerDrill(deps, signal),
      judge: judgeCheckerDrill,
    }),
  ];
}

function judgeEarlierLabs({ labs, saved }: EarlierLabsRun) {
  const passed = saved.labs.filter((run) => run.status === 'passed');
  const notPassed = saved.labs
    .filter((run) => run.status !== 'passed')
    .map((run) => `${run.lab} ${run.status}${run.failedChecks.length > 0 ? ` [${run.failedChecks.join(', ')}]` : ''}`);
  const ok = saved.labs.length === labs.length && passed.length === labs.length;
  const counts = saved.labs.map((run) => `${run.lab.slice(0, 2)} ${run.passed ?? '?'}/${run.failed ?? '?'}`).join(', ');
  const problems = notPassed.length > 0 ? `; not passed: ${notPassed.join(', ')}` : '';
  return outcome(
    ok,
    `${passed.length} of ${labs.length} labs passed in ${(saved.totalMs / 1000).toFixed(0)} s (passed/failed: ${counts})${problems}; written to ${EARLIER_LABS_FILE}`,
  );
}

function judgeDecisionRecord({ audit, kindsInDoc }: RecordReview) {
  const problems = [...audit.problems];
  if (kindsInDoc.length < WORK_KINDS.length) problems.push(`decision-record.md names ${kindsInDoc.length} of ${WORK_KINDS.length} kinds`);
  return problems.length > 0 ? fail(problems.join('; ')) : pass(audit.lines.join('; '));
}

/** Each runtime fact must be written down and say the thing that matters about it. */
const QUEUE_FACTS: Array<[keyof DecisionRecord['queue'], RegExp]> = [
  ['broker', /redis/i],
  ['worker', /own .*process/i],
  ['durableState', /mysql/i],
  ['delivery', /at least once/i],
  ['resultCache', /limited time|expire/i],
];

function judgeQueueRuntime(queue: DecisionRecord['queue']) {
  const missing = QUEUE_FACTS.filter(([field, pattern]) => !pattern.test(queue[field] ?? ''));
  if (missing.length > 0) return fail(`missing or vague: ${missing.map(([field, p]) => `${field} (expected ${p})`).join(', ')}`);
  return pass(`broker: ${queue.broker.split(',')[0]}; state: ${queue.durableState.split(' is ')[0]}; delivery: ${queue.delivery.split(':')[0]}`);
}

function judgeValidMessage(p: ValidMessageProbe) {
  if (p.fileRefused) return fail(`good.json refused: ${p.fileRefused}`);
  if (p.snapshotRefused) return fail(`a ${p.snapshotProducts}-product snapshot was refused: ${p.snapshotRefused}`);
  return pass(`good.json (${p.fileBytes} bytes) accepted; a ${p.snapshotProducts}-product snapshot encodes to ${p.snapshotBytes} bytes`);
}

function judgeSmuggledFields(attempts: Attempt[]) {
  const accepted = attempts.filter((a) => a.refused === undefined).map((a) => a.label);
  // The refusal must say which field broke the contract (never its value).
  const unnamed = attempts.filter((a) => a.refused !== undefined && !a.refused.includes(a.label)).map((a) => a.label);
  const problems = [
    accepted.length > 0 ? `accepted: ${accepted.join(', ')}` : '',
    unnamed.length > 0 ? `refused without naming the field: ${unnamed.join(', ')}` : '',
  ].filter(Boolean);
  const refused = attempts.length - accepted.length;
  return outcome(
    problems.length === 0,
    `${refused} of ${attempts.length} refused, each naming the field (${attempts.map((a) => a.label).join(', ')})${problems.length ? '; ' + problems.join('; ') : ''}`,
  );
}

function judgeSizeLimit(p: SizeProbe) {
  const problems: string[] = [];
  if (p.justUnderRefused) problems.push(`${p.limit - 1} bytes refused: ${p.justUnderRefused}`);
  if (!p.atLimitRefused) problems.push(`${p.limit} bytes accepted by encode`);
  else if (!p.atLimitRefused.includes(String(p.limit))) problems.push(`the error does not name the size: ${p.atLimitRefused}`);
  if (!p.decodeRefused) problems.push(`${p.decodedBytes} bytes accepted by decode`);
  if (problems.length > 0) return fail(problems.join('; '));
  return pass(`${p.limit - 1} bytes accepted; ${p.limit} refused ("${p.atLimitRefused}"); ${p.decodedBytes} bytes refused by decode`);
}

function judgePrices({ wrong, whole }: { wrong: Attempt[]; whole: Attempt }) {
  if (whole.refused) return fail(`${whole.label} was refused: ${whole.refused}`);
  const accepted = wrong.filter((a) => a.refused === undefined).map((a) => a.label);
  if (accepted.length > 0) return fail(`accepted price_cents ${accepted.join(', ')}`);
  const reason = wrong[0]?.refused?.split(': ').slice(-1)[0];
  return pass(`price_cents ${wrong.map((a) => a.label).join(', ')} refused ("${reason}"); ${whole.label} accepted`);
}

function judgeRoundTrip(r: RoundTrip) {
  return outcome(
    r.equalAfterDecode && r.sameBytesAfterReencode && r.decodesFromString,
    `${r.products} products, ${r.bytes} bytes (${r.characters} characters); equal after decode: ${r.equalAfterDecode}; ` +
      `same bytes after re-encode: ${r.sameBytesAfterReencode}; decodes from a string: ${r.decodesFromString}`,
  );
}

function judgeCheckerDrill(runs: CheckerRun[]) {
  const right = (run: CheckerRun) => run.exit === run.expectedExit && run.says.test(run.output);
  const seen = runs.map((run) => {
    const name = run.file.split('/').slice(-1)[0];
    return `${name} exit ${run.exit}${right(run) ? '' : ` (expected ${run.expectedExit}, ${run.says}; printed: ${run.output})`}`;
  });
  return outcome(runs.length > 0 && runs.every(right), seen.join(', '));
}
