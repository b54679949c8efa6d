// The experiments behind lesson 01's checks. Each one runs the real thing and returns
// what it saw, as typed evidence; scripts/checks.ts judges the evidence.
// - apiSession talks to src/server.ts as its own process, as a client would;
// - the in-process scenarios serve a store inside this process, because only the
//   process that owns an in-memory store can look inside it (the course does the same
//   with FastAPI's TestClient);
// - the store scenarios drive a JobStore directly.
import { errorMessage, withResources } from '@tasks-lab/lab-kit';
import { MAX_BODY_BYTES } from '../src/app.ts';
import { MAX_PRODUCTS_PER_EXPORT } from '../src/schemas.ts';
import type { RunningServer } from '../src/server.ts';
import {
  InvalidTransitionError,
  JOB_STATES,
  type ExportJob,
  type JobState,
  type JobStore,
  type TransitionPatch,
} from '../src/store.ts';
import { launchApi, postJson, request, type ApiProcessOptions, type HttpAnswer } from './api-process.ts';

export const TWO_PRODUCTS = JSON.stringify({ product_ids: [1, 2] });
/** Well-formed (a UUID) but never handed out by any server. */
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
export const MALFORMED_ID = 'not-a-uuid';

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

// ---- One session with the API process -------------------------------------------------

export interface ApiSessionEvidence {
  submit: HttpAnswer;
  /** The submit's Location header followed; undefined when there was no header to follow. */
  followed?: { location: string; answer: HttpAnswer };
  unknownId: HttpAnswer;
  malformedId: HttpAnswer;
  badBodies: { bad: BadBody; answer: HttpAnswer }[];
  docsPage: HttpAnswer;
  openApi: HttpAnswer;
}

/** Starts the API process once and makes every round trip the HTTP checks judge. */
export function apiSession(api: ApiProcessOptions, signal: AbortSignal): Promise<ApiSessionEvidence> {
  return withResources(signal, async (res) => {
    const { url } = await launchApi(res, api);
    const get = (path: string) => request(new URL(path, url).href, { signal: res.signal });
    const post = (body: string, contentType?: string) =>
      postJson(`${url}/exports`, body, contentType, { signal: res.signal });

    const submit = await post(TWO_PRODUCTS);
    const location = submit.headers.get('location');
    const followed = location ? { location, answer: await get(location) } : undefined;
    const badBodies = [];
    for (const bad of BAD_BODIES) badBodies.push({ bad, answer: await post(bad.body, bad.contentType) });
    return {
      submit,
      followed,
      unknownId: await get(`/exports/${UNKNOWN_ID}`),
      malformedId: await get(`/exports/${MALFORMED_ID}`),
      badBodies,
      docsPage: await get('/docs/'),
      openApi: await get('/openapi.json'),
    };
  });
}

// ---- The API inside this process, around a store the scenario can read -----------------

export interface InProcessDeps {
  createStore: () => JobStore;
  /** Serves the API around `store` on a free port in this process. */
  startInProcess: (store: JobStore) => Promise<RunningServer>;
}

/** Serves a fresh store for one scenario; the server closes when the scope ends. */
function withInProcessApi<T>(
  deps: InProcessDeps,
  signal: AbortSignal,
  use: (url: string, store: JobStore, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  return withResources(signal, async (res) => {
    const store = deps.createStore();
    const server = res.add(await deps.startInProcess(store), (s) => s.close());
    return use(server.url, store, res.signal);
  });
}

export interface RejectedBodiesEvidence {
  rejectedBodies: number;
  countAfterBad: number;
  /** The control: one good submit must be counted, or a count of 0 would prove nothing. */
  countAfterGood: number;
}

export function rejectedBodies(deps: InProcessDeps, signal: AbortSignal): Promise<RejectedBodiesEvidence> {
  return withInProcessApi(deps, signal, async (url, store, signal) => {
    for (const bad of BAD_BODIES) await postJson(`${url}/exports`, bad.body, bad.contentType, { signal });
    const countAfterBad = await store.count();
    await postJson(`${url}/exports`, TWO_PRODUCTS, undefined, { signal });
    return { rejectedBodies: BAD_BODIES.length, countAfterBad, countAfterGood: await store.count() };
  });
}

export interface TerminalFlagsEvidence {
  /** What GET answered for one job in each state. */
  answers: { state: JobState; status: unknown; terminal: unknown }[];
  /** Derived means computed on read: the stored record must have no terminal field to go stale. */
  storedHasTerminalField: boolean;
}

export function terminalFlags(deps: InProcessDeps, signal: AbortSignal): Promise<TerminalFlagsEvidence> {
  return withInProcessApi(deps, signal, async (url, store, signal) => {
    const ids = await driveToEveryState(store);
    const answers = [];
    for (const state of JOB_STATES) {
      const body = (await request(`${url}/exports/${ids[state]}`, { signal })).json as
        | { status?: unknown; terminal?: unknown }
        | undefined;
      answers.push({ state, status: body?.status, terminal: body?.terminal });
    }
    const stored = await store.get(ids.succeeded);
    return { answers, storedHasTerminalField: stored !== undefined && 'terminal' in stored };
  });
}

/** Creates one job per state, each reached only by allowed transitions. */
async function driveToEveryState(store: JobStore): Promise<Record<JobState, string>> {
  const start = async () => (await store.create([1])).id;
  const run = async () => (await store.transition(await start(), 'running')).id;
  return {
    queued: await start(),
    running: await run(),
    succeeded: (await store.transition(await run(), 'succeeded', { result: { rows: 1 } })).id,
    failed: (await store.transition(await run(), 'failed', { error: 'product 1 is missing' })).id,
    cancelled: (await store.transition(await start(), 'cancelled')).id,
  };
}

// ---- The store on its own --------------------------------------------------------------

export interface HappyPathEvidence {
  /** The states the job went through, as transition() reported them. */
  path: JobState[];
  /** The move the store refused, if it refused one. */
  refused?: { to: JobState; error: string };
  stored?: ExportJob;
}

/** queued -> running -> succeeded with a result, and the record read back. */
export async function happyPath(store: JobStore): Promise<HappyPathEvidence> {
  const job = await store.create([1, 2]);
  const path: JobState[] = [job.state];
  const moves: [JobState, TransitionPatch][] = [
    ['running', {}],
    ['succeeded', { result: { rows: 2 } }],
  ];
  for (const [to, patch] of moves) {
    try {
      path.push((await store.transition(job.id, to, patch)).state);
    } catch (err) {
      return { path, refused: { to, error: errorMessage(err) }, stored: await store.get(job.id) };
    }
  }
  return { path, stored: await store.get(job.id) };
}

export interface IllegalMoveEvidence {
  before?: ExportJob;
  after?: ExportJob;
  /** What transition() threw; undefined when it accepted the move. */
  thrown?: { name: string; status?: number; isInvalidTransition: boolean };
}

/** A finished job asked to run again, by a late worker that also brings an error text. */
export async function illegalMove(store: JobStore): Promise<IllegalMoveEvidence> {
  const { id } = await store.create([1, 2]);
  await store.transition(id, 'running');
  await store.transition(id, 'succeeded', { result: { rows: 2 } });
  const before = await store.get(id);
  let thrown: IllegalMoveEvidence['thrown'];
  try {
    await store.transition(id, 'running', { error: 'a late worker tried to run it again' });
  } catch (err) {
    const isInvalidTransition = err instanceof InvalidTransitionError;
    thrown = {
      name: err instanceof Error ? err.name : typeof err,
      status: isInvalidTransition ? err.status : undefined,
      isInvalidTransition,
    };
  }
  return { before, after: await store.get(id), thrown };
}
