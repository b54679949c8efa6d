// A check that cannot fail proves nothing. Each case here hands buildChecks a deliberately
// broken part (a naive server process, a store that allows or half-writes an illegal move,
// a route that stores before validating, a terminal flag computed wrongly, a server that
// keeps jobs in a file), runs the check for real and expects it to fail.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { afterAll, describe } from 'vitest';
import { buildChecks, type ChecksDeps } from '../scripts/checks.ts';
import { createApp } from '../src/app.ts';
import type { RunningServer } from '../src/server.ts';
import {
  canTransition,
  InvalidTransitionError,
  JobNotFoundError,
  MemoryJobStore,
  toJobResponse,
  type ExportJob,
  type JobState,
  type JobStore,
  type TransitionPatch,
} from '../src/index.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** Serves an Express app on a free port in this process, like startServer does. */
function listen(app: Express): Promise<RunningServer> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        server,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

/** A plain in-memory store for the broken variants below (MemoryJobStore's map is private on purpose). */
abstract class HandMadeStore implements JobStore {
  protected readonly jobs = new Map<string, ExportJob>();

  async create(productIds: readonly number[]): Promise<ExportJob> {
    const at = new Date().toISOString();
    const job: ExportJob = {
      id: randomUUID(),
      state: 'queued',
      productIds: [...productIds],
      result: null,
      error: null,
      createdAt: at,
      updatedAt: at,
    };
    this.jobs.set(job.id, job);
    return structuredClone(job);
  }

  async get(id: string): Promise<ExportJob | undefined> {
    const job = this.jobs.get(id);
    return job && structuredClone(job);
  }

  async require(id: string): Promise<ExportJob> {
    const job = await this.get(id);
    if (!job) throw new JobNotFoundError(id);
    return job;
  }

  async count(state?: JobState): Promise<number> {
    return [...this.jobs.values()].filter((job) => state === undefined || job.state === state).length;
  }

  abstract transition(id: string, to: JobState, patch?: TransitionPatch): Promise<ExportJob>;

  protected write(id: string, to: JobState, patch: TransitionPatch): ExportJob {
    const job = this.jobs.get(id);
    if (!job) throw new JobNotFoundError(id);
    Object.assign(job, { state: to, ...patch, updatedAt: new Date().toISOString() });
    return structuredClone(job);
  }
}

/** Forgets the state machine: any move is allowed, so a finished job can run again. */
class PermissiveStore extends HandMadeStore {
  async transition(id: string, to: JobState, patch: TransitionPatch = {}): Promise<ExportJob> {
    return this.write(id, to, patch);
  }
}

/** Writes first and checks afterwards: it throws the right error but leaves a half-updated record. */
class WriteThenCheckStore extends HandMadeStore {
  async transition(id: string, to: JobState, patch: TransitionPatch = {}): Promise<ExportJob> {
    const from = (await this.require(id)).state;
    const written = this.write(id, to, patch);
    if (!canTransition(from, to)) throw new InvalidTransitionError(id, from, to);
    return written;
  }
}

/** A store whose table has lost running -> succeeded. */
class NoSuccessStore extends MemoryJobStore {
  override async transition(id: string, to: JobState, patch?: TransitionPatch): Promise<ExportJob> {
    if (to === 'succeeded') throw new InvalidTransitionError(id, 'running', to);
    return super.transition(id, to, patch);
  }
}

/** The real API behind one broken route, served in this process. */
function brokenRoute(addRoute: (app: Express, store: JobStore) => void): ChecksDeps {
  return {
    startInProcess: (store) => {
      const app = express();
      addRoute(app, store);
      app.use(createApp({ store, log: () => {} }).app);
      return listen(app);
    },
  };
}

const naiveServer: ChecksDeps = { api: { script: fixture('naive-server.ts') } };
const dir = mkdtempSync(join(tmpdir(), 'lab01-jobs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checks.can-fail: every check fails when its part is broken', () => {
  const suite = canFailSuite(buildChecks);

  suite.breaks('submit-answers-202', 'the server answers 200 with no Location (naive server)', () => naiveServer, {
    observed: /status 200/,
  });
  suite.breaks('location-returns-job', 'the submit sends no Location header (naive server)', () => naiveServer, {
    observed: /no Location header/,
  });
  suite.breaks('unknown-id-404', 'an unknown id answers 200 null (naive server)', () => naiveServer, {
    observed: /-> 200 null/,
  });
  suite.breaks('malformed-id-400', 'ids are never checked (naive server)', () => naiveServer, { observed: /-> 200/ });
  suite.breaks('bad-bodies-4xx', 'bodies are never validated (naive server)', () => naiveServer, {
    observed: /expected 422/,
  });
  suite.breaks('api-docs-served', 'there are no API docs (naive server)', () => naiveServer, {
    observed: /\/docs\/ -> 404/,
  });

  suite.breaks(
    'rejected-body-stores-nothing',
    'the route creates the job before validating the body',
    () =>
      brokenRoute((app, store) =>
        app.post('/exports', async (_req, _res, next) => {
          await store.create([]); // the bug: reserve a job first, validate later
          next();
        }),
      ),
    { observed: /store count 11 after 11 rejected bodies/ },
  );
  suite.breaks(
    'terminal-derived',
    'terminal means "status is succeeded"',
    () =>
      brokenRoute((app, store) =>
        app.get('/exports/:id', async (req, res) => {
          const job = await store.require(req.params.id);
          res.json({ ...toJobResponse(job), terminal: job.state === 'succeeded' });
        }),
      ),
    { observed: /failed false/ },
  );

  suite.breaks(
    'allowed-path-succeeds',
    'the store rejects running -> succeeded',
    () => ({ createStore: () => new NoSuccessStore() }),
    {
      observed: /succeeded refused/,
    },
  );
  suite.breaks(
    'illegal-transition-rejected',
    'the store allows succeeded -> running',
    () => ({ createStore: () => new PermissiveStore() }),
    {
      observed: /did not throw/,
    },
  );
  suite.breaks(
    'illegal-transition-rejected',
    'the store writes before it checks (the error is thrown, the record changed)',
    () => ({ createStore: () => new WriteThenCheckStore() }),
    {
      observed: /threw InvalidTransitionError \(409\); record changed/,
    },
  );

  suite.breaks(
    'restart-forgets-jobs',
    'jobs survive a restart (a server that keeps them in a file)',
    () => ({ api: { script: fixture('file-backed-server.ts'), env: { JOBS_FILE: join(dir, 'jobs.jsonl') } } }),
    { observed: /GET old id -> 200/, timeoutMs: 120_000 },
  );

  suite.coversEveryCheck();
});
