// Lesson 01's learning checks and fault drill, each run against the real thing:
// - the HTTP checks start src/server.ts as its own process and talk to it with fetch;
// - the state-machine checks drive a JobStore in this process, because only the
//   process that owns the in-memory store can see inside it (the course does the same
//   with FastAPI's TestClient).
// buildChecks(deps) takes the parts a test swaps for broken ones (see test/checks.can-fail.test.ts).
import { isDeepStrictEqual } from 'node:util';
import { fail, outcome, type Check } from '@tasks-lab/lab-kit';
import { startServer, type RunningServer } from '../src/server.ts';
import { InvalidTransitionError, JOB_STATES, JobStore, type JobState } from '../src/store.ts';
import { MAX_BODY_BYTES } from '../src/app.ts';
import { MAX_PRODUCTS_PER_EXPORT } from '../src/schemas.ts';
import { postJson, request, withApiProcess, type ApiProcessOptions, type HttpAnswer } from './api-process.ts';
import { runRestartDrill } from './drill-restart.ts';

/** The store methods the state-machine checks call. */
export type StoreUnderTest = Pick<JobStore, 'create' | 'get' | 'transition'>;

export interface ChecksDeps {
  /** The API process: entry point and environment. @defaultValue src/server.ts */
  api?: ApiProcessOptions;
  /** The store the state-machine checks drive. @defaultValue a new JobStore */
  createStore?: () => StoreUnderTest;
  /** Serves the API around `store` inside this process, on a free port. @defaultValue startServer(0, { store }) */
  startInProcess?: (store: JobStore) => Promise<RunningServer>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TWO_PRODUCTS = JSON.stringify({ product_ids: [1, 2] });
/** Well-formed (a UUID) but never handed out by any server. */
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

interface JobBody {
  id?: unknown;
  status?: unknown;
  terminal?: unknown;
}
interface ErrorBody {
  error?: unknown;
  message?: unknown;
  issues?: { path: string; message: string }[];
}
const asJob = (answer: HttpAnswer) => (answer.json ?? {}) as JobBody;
const asError = (answer: HttpAnswer) => (answer.json ?? {}) as ErrorBody;

/** A clear error is JSON with a machine-readable code and a sentence for people. */
function isClearError(answer: HttpAnswer): boolean {
  const body = asError(answer);
  return typeof body.error === 'string' && typeof body.message === 'string' && body.message.length > 0;
}

/** One bad request body, and the status our API answers it with (the doc explains each choice). */
export interface BadBody {
  label: string;
  body: string;
  contentType: string;
  status: number;
}

export const BAD_BODIES: BadBody[] = [
  { label: 'not JSON', body: '{"product_ids": [1, 2', contentType: 'application/json', status: 400 },
  { label: 'text/plain', body: TWO_PRODUCTS, contentType: 'text/plain', status: 415 },
  { label: 'empty list', body: '{"product_ids": []}', contentType: 'application/json', status: 422 },
  {
    label: `${MAX_PRODUCTS_PER_EXPORT + 1} ids`,
    body: JSON.stringify({ product_ids: Array.from({ length: MAX_PRODUCTS_PER_EXPORT + 1 }, (_, i) => i + 1) }),
    contentType: 'application/json',
    status: 422,
  },
  { label: 'id 1.5', body: '{"product_ids": [1.5]}', contentType: 'application/json', status: 422 },
  { label: 'id -1', body: '{"product_ids": [-1]}', contentType: 'application/json', status: 422 },
  { label: 'id 0', body: '{"product_ids": [0]}', contentType: 'application/json', status: 422 },
  { label: 'id "2"', body: '{"product_ids": ["2"]}', contentType: 'application/json', status: 422 },
  { label: 'unknown field', body: '{"product_ids": [1], "priority": 5}', contentType: 'application/json', status: 422 },
  { label: 'no product_ids', body: '{}', contentType: 'application/json', status: 422 },
  {
    label: 'oversized body',
    // Valid-looking JSON, just twice the limit, so only the size can be the reason for the 413.
    body: `{"product_ids": [${'1,'.repeat(MAX_BODY_BYTES)}1]}`,
    contentType: 'application/json',
    status: 413,
  },
];

export function buildChecks(deps: ChecksDeps = {}): Check[] {
  const api = deps.api ?? {};
  const createStore = deps.createStore ?? (() => new JobStore());
  const startInProcess = deps.startInProcess ?? ((store: JobStore) => startServer(0, { store, log: () => {} }));

  /** Serves a store in this process for one check, then closes the server. */
  async function withInProcessApi<T>(store: JobStore, use: (url: string) => Promise<T>): Promise<T> {
    const server = await startInProcess(store);
    try {
      return await use(server.url);
    } finally {
      await server.close();
    }
  }

  return [
    {
      name: 'POST /exports answers 202 with a job id and a Location',
      run: () =>
        withApiProcess(api, async ({ url }) => {
          const answer = await postJson(`${url}/exports`, TWO_PRODUCTS);
          const { id, status } = asJob(answer);
          const location = answer.headers.get('location');
          const ok =
            answer.status === 202 && typeof id === 'string' && UUID.test(id) && location === `/exports/${id}` && status === 'queued';
          return outcome(ok, `status ${answer.status}, id ${String(id)}, Location ${location ?? '(none)'}, status field ${String(status)}`);
        }),
    },
    {
      name: 'GET on the Location returns the same job, queued and not terminal',
      run: () =>
        withApiProcess(api, async ({ url }) => {
          const submitted = await postJson(`${url}/exports`, TWO_PRODUCTS);
          const location = submitted.headers.get('location');
          if (!location) return fail(`the submit (status ${submitted.status}) had no Location header to follow`);
          const answer = await request(new URL(location, url).href);
          const job = asJob(answer);
          const ok = answer.status === 200 && job.id === asJob(submitted).id && job.status === 'queued' && job.terminal === false;
          return outcome(
            ok,
            `GET ${location} -> ${answer.status}, same id: ${job.id === asJob(submitted).id}, status ${String(job.status)}, terminal ${String(job.terminal)}`,
          );
        }),
    },
    {
      name: 'An unknown job id answers 404 with a JSON error',
      run: () =>
        withApiProcess(api, async ({ url }) => {
          const answer = await request(`${url}/exports/${UNKNOWN_ID}`);
          const ok = answer.status === 404 && asError(answer).error === 'job-not-found' && isClearError(answer);
          return outcome(ok, `GET /exports/${UNKNOWN_ID} -> ${answer.status} ${answer.text.slice(0, 120)}`);
        }),
    },
    {
      name: 'A malformed job id answers 400',
      run: () =>
        withApiProcess(api, async ({ url }) => {
          const answer = await request(`${url}/exports/not-a-uuid`);
          const ok = answer.status === 400 && asError(answer).error === 'invalid-id' && isClearError(answer);
          return outcome(ok, `GET /exports/not-a-uuid -> ${answer.status} ${answer.text.slice(0, 120)}`);
        }),
    },
    {
      name: 'Every kind of bad body gets a 4xx with a clear message',
      run: () =>
        withApiProcess(api, async ({ url }) => {
          const seen: string[] = [];
          let allAsExpected = true;
          for (const bad of BAD_BODIES) {
            const answer = await postJson(`${url}/exports`, bad.body, bad.contentType);
            // A 422 must also say which field is wrong, so the client can fix it.
            const named = bad.status !== 422 || (asError(answer).issues?.length ?? 0) > 0;
            const ok = answer.status === bad.status && isClearError(answer) && named;
            if (!ok) allAsExpected = false;
            seen.push(`${bad.label} ${answer.status}${ok ? '' : ` (expected ${bad.status} with a JSON message)`}`);
          }
          return outcome(allAsExpected, seen.join(', '));
        }),
    },
    {
      name: 'A rejected body stores nothing',
      run: async () => {
        const store = new JobStore();
        return withInProcessApi(store, async (url) => {
          for (const bad of BAD_BODIES) await postJson(`${url}/exports`, bad.body, bad.contentType);
          const afterBad = store.size;
          // The control: one good submit must show up, or a size of 0 would prove nothing.
          await postJson(`${url}/exports`, TWO_PRODUCTS);
          const afterGood = store.size;
          return outcome(
            afterBad === 0 && afterGood === 1,
            `store size ${afterBad} after ${BAD_BODIES.length} rejected bodies, ${afterGood} after one good submit`,
          );
        });
      },
    },
    {
      name: 'queued -> running -> succeeded is allowed',
      run: () => {
        const store = createStore();
        const job = store.create([1, 2]);
        const path: JobState[] = [job.state];
        path.push(store.transition(job.id, 'running').state);
        const done = store.transition(job.id, 'succeeded', { result: { rows: 2 } });
        path.push(done.state);
        const stored = store.get(job.id);
        const ok = stored?.state === 'succeeded' && stored.result?.rows === 2;
        return outcome(ok, `${path.join(' -> ')}; stored state ${stored?.state}, result ${JSON.stringify(stored?.result)}`);
      },
    },
    {
      name: 'succeeded -> running is rejected and the record is unchanged',
      run: () => {
        const store = createStore();
        const { id } = store.create([1, 2]);
        store.transition(id, 'running');
        store.transition(id, 'succeeded', { result: { rows: 2 } });
        const before = store.get(id);
        let thrown: unknown;
        try {
          store.transition(id, 'running', { error: 'a late worker tried to run it again' });
        } catch (err) {
          thrown = err;
        }
        const after = store.get(id);
        const rejected = thrown instanceof InvalidTransitionError;
        const unchanged = isDeepStrictEqual(before, after);
        const what =
          thrown instanceof InvalidTransitionError
            ? `threw ${thrown.name} (${thrown.status})`
            : thrown
              ? `threw ${String(thrown)}`
              : 'did not throw';
        return outcome(
          rejected && unchanged,
          `succeeded -> running ${what}; record ${unchanged ? 'deep-equal before and after' : `changed: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`}`,
        );
      },
    },
    {
      name: 'terminal is derived: false for queued and running, true for the three end states',
      run: async () => {
        const store = new JobStore();
        const wanted: Record<JobState, boolean> = { queued: false, running: false, succeeded: true, failed: true, cancelled: true };
        const ids = driveToEveryState(store);
        return withInProcessApi(store, async (url) => {
          const seen: string[] = [];
          let ok = true;
          for (const state of JOB_STATES) {
            const job = asJob(await request(`${url}/exports/${ids[state]}`));
            if (job.status !== state || job.terminal !== wanted[state]) ok = false;
            seen.push(`${String(job.status)} ${String(job.terminal)}`);
          }
          // Derived means computed on read: the stored record has no terminal field to go stale.
          const stored = Object.keys(store.get(ids.succeeded) ?? {}).includes('terminal');
          if (stored) ok = false;
          return outcome(ok, `${seen.join(', ')}; stored record has a terminal field: ${stored}`);
        });
      },
    },
    {
      name: '/docs serves Swagger UI and /openapi.json describes POST /exports',
      run: () =>
        withApiProcess(api, async ({ url }) => {
          const docs = await request(`${url}/docs/`);
          const spec = await request(`${url}/openapi.json`);
          const isSwagger = docs.status === 200 && /swagger-ui/i.test(docs.text);
          const post = (spec.json as { paths?: Record<string, { post?: { responses?: Record<string, unknown> } }> } | undefined)
            ?.paths?.['/exports']?.post;
          const describes202 = spec.status === 200 && post?.responses?.['202'] !== undefined;
          return outcome(
            isSwagger && describes202,
            `/docs/ -> ${docs.status}${isSwagger ? ' (Swagger UI page)' : ''}; /openapi.json -> ${spec.status}, POST /exports ${describes202 ? 'documented with its 202' : 'missing'}`,
          );
        }),
    },
    {
      name: 'Fault drill: after a SIGKILL and a restart, the old job id answers 404',
      timeoutMs: 90_000,
      run: async () => {
        const drill = await runRestartDrill(api);
        const killed = drill.exit.signal === 'SIGKILL';
        const ok =
          drill.statusBeforeKill === 200 &&
          killed &&
          drill.secondPid !== drill.firstPid &&
          drill.afterRestart.status === 404 &&
          drill.newSubmitStatus === 202;
        return outcome(
          ok,
          `before the kill GET -> ${drill.statusBeforeKill}; process ${drill.firstPid} exited by ${drill.exit.signal ?? `code ${drill.exit.code}`}; ` +
            `new process ${drill.secondPid}: GET old id -> ${drill.afterRestart.status}, new submit -> ${drill.newSubmitStatus}`,
        );
      },
    },
  ];
}

/** Creates one job per state, each reached only by allowed transitions. */
function driveToEveryState(store: JobStore): Record<JobState, string> {
  const start = () => store.create([1]).id;
  const run = (id: string) => store.transition(id, 'running').id;
  return {
    queued: start(),
    running: run(start()),
    succeeded: store.transition(run(start()), 'succeeded', { result: { rows: 1 } }).id,
    failed: store.transition(run(start()), 'failed', { error: 'product 1 is missing' }).id,
    cancelled: store.transition(start(), 'cancelled').id,
  };
}
