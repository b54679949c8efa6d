// A check that cannot fail proves nothing. Each test here feeds the verify checks a
// deliberately broken part (a naive server process, a store that allows or half-writes an
// illegal move, a route that stores before validating, a terminal flag computed wrongly,
// a store that survives restarts) and expects the check to fail.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { runCheck, type Check } from '@tasks-lab/lab-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { buildChecks, type StoreUnderTest } from '../scripts/checks.ts';
import { createApp } from '../src/app.ts';
import type { RunningServer } from '../src/server.ts';
import { canTransition, InvalidTransitionError, JobStore, toJobResponse, type ExportJob, type JobState, type TransitionPatch } from '../src/index.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

function check(checks: Check[], startOfName: string): Check {
  const found = checks.find((c) => c.name.startsWith(startOfName));
  if (!found) throw new Error(`no check named "${startOfName}..."`);
  return found;
}

/** Serves an Express app on a free port in this process, like startServer does. */
function listen(app: Express): Promise<RunningServer> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, server, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

/** A plain in-memory store for the broken variants below (JobStore's map is private on purpose). */
abstract class HandMadeStore implements StoreUnderTest {
  protected readonly jobs = new Map<string, ExportJob>();

  create(productIds: readonly number[]): ExportJob {
    const at = new Date().toISOString();
    const job: ExportJob = { id: randomUUID(), state: 'queued', productIds: [...productIds], result: null, error: null, createdAt: at, updatedAt: at };
    this.jobs.set(job.id, job);
    return structuredClone(job);
  }

  get(id: string): ExportJob | undefined {
    const job = this.jobs.get(id);
    return job && structuredClone(job);
  }

  abstract transition(id: string, to: JobState, patch?: TransitionPatch): ExportJob;

  protected write(id: string, to: JobState, patch: TransitionPatch): ExportJob {
    const job = this.jobs.get(id)!;
    Object.assign(job, { state: to, ...patch, updatedAt: new Date().toISOString() });
    return structuredClone(job);
  }
}

/** Forgets the state machine: any move is allowed, so a finished job can run again. */
class PermissiveStore extends HandMadeStore {
  transition(id: string, to: JobState, patch: TransitionPatch = {}): ExportJob {
    return this.write(id, to, patch);
  }
}

/** Writes first and checks afterwards: it throws the right error but leaves a half-updated record. */
class WriteThenCheckStore extends HandMadeStore {
  transition(id: string, to: JobState, patch: TransitionPatch = {}): ExportJob {
    const from = this.jobs.get(id)!.state;
    const written = this.write(id, to, patch);
    if (!canTransition(from, to)) throw new InvalidTransitionError(id, from, to);
    return written;
  }
}

/** A store whose table has lost running -> succeeded. */
class NoSuccessStore extends JobStore {
  override transition(id: string, to: JobState, patch?: TransitionPatch): ExportJob {
    if (to === 'succeeded') throw new InvalidTransitionError(id, 'running', to);
    return super.transition(id, to, patch);
  }
}

describe('checks.can-fail: the HTTP checks against a naive server process', () => {
  const checks = buildChecks({ api: { script: fixture('naive-server.ts') } });

  it.each([
    'POST /exports answers 202',
    'GET on the Location',
    'An unknown job id answers 404',
    'A malformed job id answers 400',
    'Every kind of bad body',
    '/docs serves Swagger UI',
  ])('When the server gets "%s" wrong, Then the check fails', async (name) => {
    const result = await runCheck(check(checks, name));
    expect(result.ok, result.observed).toBe(false);
  });
});

describe('checks.can-fail: the state-machine checks against broken stores', () => {
  it('When the store allows succeeded -> running, Then "rejected and unchanged" fails', async () => {
    const result = await runCheck(check(buildChecks({ createStore: () => new PermissiveStore() }), 'succeeded -> running'));
    expect(result.ok, result.observed).toBe(false);
    expect(result.observed).toContain('did not throw');
  });

  it('When the store writes before it checks, Then "rejected and unchanged" fails although the error is thrown', async () => {
    const result = await runCheck(check(buildChecks({ createStore: () => new WriteThenCheckStore() }), 'succeeded -> running'));
    expect(result.ok, result.observed).toBe(false);
    expect(result.observed).toContain('threw InvalidTransitionError');
    expect(result.observed).toContain('changed');
  });

  it('When the store rejects running -> succeeded, Then "queued -> running -> succeeded is allowed" fails', async () => {
    const result = await runCheck(check(buildChecks({ createStore: () => new NoSuccessStore() }), 'queued -> running -> succeeded'));
    expect(result.ok, result.observed).toBe(false);
  });
});

describe('checks.can-fail: the in-process API checks against broken routes', () => {
  it('When the route creates the job before validating the body, Then "A rejected body stores nothing" fails', async () => {
    const startInProcess = (store: JobStore) => {
      const app = express();
      // The bug: reserve a job first, validate later.
      app.post('/exports', (_req, _res, next) => {
        store.create([]);
        next();
      });
      app.use(createApp({ store, log: () => {} }).app);
      return listen(app);
    };
    const result = await runCheck(check(buildChecks({ startInProcess }), 'A rejected body stores nothing'));
    expect(result.ok, result.observed).toBe(false);
  });

  it('When terminal means "status is succeeded", Then the terminal check fails on failed and cancelled', async () => {
    const startInProcess = (store: JobStore) => {
      const app = express();
      app.get('/exports/:id', (req, res) => {
        const job = store.require(req.params.id);
        res.json({ ...toJobResponse(job), terminal: job.state === 'succeeded' });
      });
      app.use(createApp({ store, log: () => {} }).app);
      return listen(app);
    };
    const result = await runCheck(check(buildChecks({ startInProcess }), 'terminal is derived'));
    expect(result.ok, result.observed).toBe(false);
    expect(result.observed).toContain('failed false');
  });
});

describe('checks.can-fail: the fault drill against a server that keeps jobs in a file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lab01-jobs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('When jobs survive a restart, Then the restart drill fails (the old id is still found)', async () => {
    const api = { script: fixture('file-backed-server.ts'), env: { JOBS_FILE: join(dir, 'jobs.jsonl') } };
    const result = await runCheck(check(buildChecks({ api }), 'Fault drill'));
    expect(result.ok, result.observed).toBe(false);
    expect(result.observed).toContain('GET old id -> 200');
  });
});
