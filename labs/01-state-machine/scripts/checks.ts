// Lesson 01's learning checks and fault drill. Each check names a scenario (an experiment
// run against the real thing, see scripts/scenarios.ts) and judges the evidence it gathered.
// Several HTTP checks judge ONE session with the API process (sharedScenario), so verify
// starts that process once; each check still fails on its own.
// buildChecks(deps) takes the parts a test swaps for broken ones (test/checks.can-fail.test.ts);
// building starts nothing, running does.
import { isDeepStrictEqual } from 'node:util';
import { defineCheck, fail, outcome, sharedScenario, type Check } from '@tasks-lab/lab-kit';
import { startServer } from '../src/server.ts';
import { MemoryJobStore, type JobState } from '../src/store.ts';
import type { ApiProcessOptions, HttpAnswer } from './api-process.ts';
import { runRestartDrill } from './drill-restart.ts';
import {
  apiSession,
  happyPath,
  illegalMove,
  MALFORMED_ID,
  rejectedBodies,
  terminalFlags,
  UNKNOWN_ID,
  type InProcessDeps,
} from './scenarios.ts';

export interface ChecksDeps extends Partial<InProcessDeps> {
  /** The API process: entry point and environment. @defaultValue src/server.ts */
  api?: ApiProcessOptions;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface JobBody {
  id?: unknown;
  status?: unknown;
  terminal?: unknown;
}
interface ErrorBody {
  error?: unknown;
  message?: unknown;
  issues?: unknown[];
}
const asJob = (answer: HttpAnswer) => (answer.json ?? {}) as JobBody;
const asError = (answer: HttpAnswer) => (answer.json ?? {}) as ErrorBody;

/** A clear error is JSON with a machine-readable code and a sentence for people. */
function isClearError(answer: HttpAnswer): boolean {
  const body = asError(answer);
  return typeof body.error === 'string' && typeof body.message === 'string' && body.message.length > 0;
}

export function buildChecks(deps: ChecksDeps = {}): Check[] {
  const api = deps.api ?? {};
  const inProcess: InProcessDeps = {
    createStore: deps.createStore ?? (() => new MemoryJobStore()),
    startInProcess: deps.startInProcess ?? ((store) => startServer(0, { store, log: () => {} })),
  };
  const session = sharedScenario((signal) => apiSession(api, signal));

  return [
    defineCheck({
      id: 'submit-answers-202',
      name: 'POST /exports answers 202 with a job id and a Location',
      scenario: session,
      judge: ({ submit }) => {
        const { id, status } = asJob(submit);
        const location = submit.headers.get('location');
        const ok =
          submit.status === 202 &&
          typeof id === 'string' &&
          UUID.test(id) &&
          location === `/exports/${id}` &&
          status === 'queued';
        return outcome(
          ok,
          `status ${submit.status}, id ${String(id)}, Location ${location ?? '(none)'}, status field ${String(status)}`,
        );
      },
    }),
    defineCheck({
      id: 'location-returns-job',
      name: 'GET on the Location returns the same job, queued and not terminal',
      scenario: session,
      judge: ({ submit, followed }) => {
        if (!followed) return fail(`the submit (status ${submit.status}) had no Location header to follow`);
        const job = asJob(followed.answer);
        const sameId = job.id === asJob(submit).id;
        const ok = followed.answer.status === 200 && sameId && job.status === 'queued' && job.terminal === false;
        return outcome(
          ok,
          `GET ${followed.location} -> ${followed.answer.status}, same id: ${sameId}, status ${String(job.status)}, terminal ${String(job.terminal)}`,
        );
      },
    }),
    defineCheck({
      id: 'unknown-id-404',
      name: 'An unknown job id answers 404 with a JSON error',
      scenario: session,
      judge: ({ unknownId }) =>
        outcome(
          unknownId.status === 404 && asError(unknownId).error === 'job-not-found' && isClearError(unknownId),
          `GET /exports/${UNKNOWN_ID} -> ${unknownId.status} ${unknownId.text.slice(0, 120)}`,
        ),
    }),
    defineCheck({
      id: 'malformed-id-400',
      name: 'A malformed job id answers 400',
      scenario: session,
      judge: ({ malformedId }) =>
        outcome(
          malformedId.status === 400 && asError(malformedId).error === 'invalid-id' && isClearError(malformedId),
          `GET /exports/${MALFORMED_ID} -> ${malformedId.status} ${malformedId.text.slice(0, 120)}`,
        ),
    }),
    defineCheck({
      id: 'bad-bodies-4xx',
      name: 'Every kind of bad body gets a 4xx with a clear message',
      scenario: session,
      judge: ({ badBodies }) => {
        const seen = badBodies.map(({ bad, answer }) => {
          // A 422 must also say which field is wrong, so the client can fix it.
          const named = bad.status !== 422 || (asError(answer).issues?.length ?? 0) > 0;
          const ok = answer.status === bad.status && isClearError(answer) && named;
          return {
            ok,
            text: `${bad.label} ${answer.status}${ok ? '' : ` (expected ${bad.status} with a JSON message)`}`,
          };
        });
        return outcome(
          seen.every((s) => s.ok),
          seen.map((s) => s.text).join(', '),
        );
      },
    }),
    defineCheck({
      id: 'rejected-body-stores-nothing',
      name: 'A rejected body stores nothing',
      scenario: (signal) => rejectedBodies(inProcess, signal),
      judge: (e) =>
        outcome(
          e.countAfterBad === 0 && e.countAfterGood === 1,
          `store count ${e.countAfterBad} after ${e.rejectedBodies} rejected bodies, ${e.countAfterGood} after one good submit`,
        ),
    }),
    defineCheck({
      id: 'allowed-path-succeeds',
      name: 'queued -> running -> succeeded is allowed',
      scenario: () => happyPath(inProcess.createStore()),
      judge: ({ path, refused, stored }) => {
        const ok = !refused && stored?.state === 'succeeded' && stored.result?.rows === 2;
        const moves = path.join(' -> ') + (refused ? ` -> ${refused.to} refused (${refused.error})` : '');
        return outcome(ok, `${moves}; stored state ${stored?.state}, result ${JSON.stringify(stored?.result)}`);
      },
    }),
    defineCheck({
      id: 'illegal-transition-rejected',
      name: 'succeeded -> running is rejected and the record is unchanged',
      scenario: () => illegalMove(inProcess.createStore()),
      judge: ({ before, after, thrown }) => {
        const unchanged = before !== undefined && isDeepStrictEqual(before, after);
        const what = thrown ? `threw ${thrown.name}${thrown.status ? ` (${thrown.status})` : ''}` : 'did not throw';
        const record = unchanged
          ? 'deep-equal before and after'
          : `changed: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`;
        return outcome(
          thrown?.isInvalidTransition === true && unchanged,
          `succeeded -> running ${what}; record ${record}`,
        );
      },
    }),
    defineCheck({
      id: 'terminal-derived',
      name: 'terminal is derived: false for queued and running, true for the three end states',
      scenario: (signal) => terminalFlags(inProcess, signal),
      judge: ({ answers, storedHasTerminalField }) => {
        const wanted: Record<JobState, boolean> = {
          queued: false,
          running: false,
          succeeded: true,
          failed: true,
          cancelled: true,
        };
        const right = answers.every((a) => a.status === a.state && a.terminal === wanted[a.state]);
        const seen = answers.map((a) => `${String(a.status)} ${String(a.terminal)}`).join(', ');
        return outcome(
          right && !storedHasTerminalField,
          `${seen}; stored record has a terminal field: ${storedHasTerminalField}`,
        );
      },
    }),
    defineCheck({
      id: 'api-docs-served',
      name: '/docs serves Swagger UI and /openapi.json describes POST /exports',
      scenario: session,
      judge: ({ docsPage, openApi }) => {
        const isSwagger = docsPage.status === 200 && /swagger-ui/i.test(docsPage.text);
        const spec = openApi.json as
          | { paths?: Record<string, { post?: { responses?: Record<string, unknown> } }> }
          | undefined;
        const describes202 =
          openApi.status === 200 && spec?.paths?.['/exports']?.post?.responses?.['202'] !== undefined;
        return outcome(
          isSwagger && describes202,
          `/docs/ -> ${docsPage.status}${isSwagger ? ' (Swagger UI page)' : ''}; /openapi.json -> ${openApi.status}, POST /exports ${describes202 ? 'documented with its 202' : 'missing'}`,
        );
      },
    }),
    defineCheck({
      id: 'restart-forgets-jobs',
      name: 'Fault drill: after a SIGKILL and a restart, the old job id answers 404',
      timeoutMs: 90_000,
      scenario: (signal) => runRestartDrill({ api, signal }),
      judge: (drill) => {
        const ok =
          drill.statusBeforeKill === 200 &&
          drill.exit.signal === 'SIGKILL' &&
          drill.secondPid !== drill.firstPid &&
          drill.afterRestart.status === 404 &&
          drill.newSubmitStatus === 202;
        return outcome(
          ok,
          `before the kill GET -> ${drill.statusBeforeKill}; process ${drill.firstPid} exited by ${drill.exit.signal ?? `code ${drill.exit.code}`}; ` +
            `new process ${drill.secondPid}: GET old id -> ${drill.afterRestart.status}, new submit -> ${drill.newSubmitStatus}`,
        );
      },
    }),
  ];
}
