// Lesson 07's learning checks and fault drill. The experiments (scenarios.ts) run the
// real thing and return evidence; each check here only judges it. buildChecks(deps)
// lets the can-fail tests swap in a broken contract, another decision record, another
// queue comparison, other labs or other sample files.
import { defineCheck, fail, outcome, pass, type Check } from '@tasks-lab/lab-kit';
import { EARLIER_LABS_FILE } from '../src/recorded-run.ts';
import { gradeProblems, type RecordGrade } from '../src/evidence.ts';
import { MAX_MESSAGE_BYTES } from '../src/message-contract.ts';
import { comparisonGaps, COURSE_QUEUE } from '../src/queue-comparison.ts';
import {
  gradeReferenceRecord,
  probePrices,
  probeRoundTrip,
  probeSizeLimit,
  probeSmuggledFields,
  probeValidMessage,
  rerunEarlierLabs,
  reviewQueueComparison,
  runCheckerDrill,
  type Attempt,
  type CheckerRun,
  type ComparisonReview,
  type EarlierLabsRun,
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
      name: 'the reference decision record places four kinds of work, each citing a value this run recorded',
      scenario: () => gradeReferenceRecord(deps),
      judge: judgeDecisionRecord,
    }),
    defineCheck({
      id: 'queue-comparison-complete',
      name: `${COURSE_QUEUE} is compared with other Node job queues: version, timeouts, retry default, result retention, each with its source`,
      scenario: () => reviewQueueComparison(deps),
      judge: judgeQueueComparison,
    }),
    defineCheck({
      id: 'valid-message-accepted',
      name: 'a job id plus a product snapshot passes the contract',
      scenario: () => probeValidMessage(deps),
      judge: judgeValidMessage,
    }),
    defineCheck({
      id: 'credentials-refused',
      name: 'a message carrying credentials or a connection object is rejected',
      scenario: () => probeSmuggledFields(deps),
      judge: judgeSmuggledFields,
    }),
    defineCheck({
      id: 'oversize-refused',
      name: `a message of ${MAX_MESSAGE_BYTES} bytes or more is rejected, naming its size, before it is validated`,
      scenario: () => probeSizeLimit(deps),
      judge: judgeSizeLimit,
    }),
    defineCheck({
      id: 'float-price-refused',
      name: 'a price that is not a whole number of cents is rejected',
      scenario: () => probePrices(deps),
      judge: judgePrices,
    }),
    defineCheck({
      id: 'round-trip-exact',
      name: 'the contract round-trips: decode(encode(m)) equals m, byte for byte',
      scenario: () => probeRoundTrip(deps),
      judge: judgeRoundTrip,
    }),
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

function judgeDecisionRecord(grade: RecordGrade) {
  const problems = gradeProblems(grade);
  return problems.length > 0 ? fail(problems.join('; ')) : pass(grade.lines.join('; '));
}

function judgeQueueComparison({ rows, installed }: ComparisonReview) {
  const gaps = comparisonGaps(rows);
  const course = rows.find((row) => row.package === COURSE_QUEUE);
  if (installed.problem) gaps.push(installed.problem);
  else if (course && course.version !== installed.version) {
    gaps.push(
      `the table describes ${COURSE_QUEUE} ${course.version}, lab 08 installs ${installed.version}: check its facts again`,
    );
  }
  const compared = rows.map((row) => `${row.package} ${row.version}`).join(', ');
  if (gaps.length > 0) return fail(`${gaps.join('; ')} (compared: ${compared})`);
  return pass(
    `${compared}; ${COURSE_QUEUE} ${installed.version} is what lab 08 installs; storage, Node, timeouts, retry default and result retention each with its source`,
  );
}

function judgeValidMessage(p: ValidMessageProbe) {
  if (p.fileRefused) return fail(`good.json refused: ${p.fileRefused}`);
  if (p.snapshotRefused) return fail(`a ${p.snapshotProducts}-product snapshot was refused: ${p.snapshotRefused}`);
  return pass(
    `good.json (${p.fileBytes} bytes) accepted; a ${p.snapshotProducts}-product snapshot encodes to ${p.snapshotBytes} bytes`,
  );
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
  else if (!p.atLimitRefused.includes(String(p.limit)))
    problems.push(`the error does not name the size: ${p.atLimitRefused}`);
  if (!p.decodeRefused) problems.push(`${p.decodedBytes} bytes accepted by decode`);
  const huge = `a ${p.huge.bytes}-byte message with a float price refused as ${p.huge.refusedAs ?? 'nothing (accepted)'} in ${p.huge.ms} ms`;
  if (p.huge.refusedAs !== 'too-large') problems.push(`${huge}: its size was not checked first`);
  if (problems.length > 0) return fail(problems.join('; '));
  return pass(
    `${p.limit - 1} bytes accepted; ${p.limit} refused ("${p.atLimitRefused}"); ${p.decodedBytes} bytes refused by decode; ${huge}`,
  );
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
