// The client's own bounds (the course's connect, read and write timeouts) against a database
// that stops answering: a PRIVATE MariaDB/MySQL of this file (its own port, data folder and
// users, from @tasks-lab/infra's startPrivateMysql), frozen with SIGSTOP and thawed with
// SIGCONT. Never the labs' shared server: freezing it would stall every other lab's tests.
//
// Each test freezes the server itself and thaws it in a `finally`; afterAll (and, if the test
// process dies first, an exit handler) sends SIGCONT before the kill and removes the data folder.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import {
  findBinaries,
  loadCredentials,
  prepareCredentials,
  startPrivateMysql,
  type PrivateMysql,
} from '@tasks-lab/infra';
import { waitFor } from '@tasks-lab/lab-kit';
import { statesThatMayMoveTo } from '@tasks-lab/01-state-machine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJobsDatabase, withTransaction, type DatabaseSettings } from '../src/database.ts';
import { freshDatabase, type FreshDatabase } from '../src/scratch-databases.ts';
import { DatabaseUnavailableError, QueryTimeoutError } from '../src/errors.ts';
import { CLAIM, FINISH, LOCK_CLAIMABLE } from '../src/job-queries.ts';
import { artifactName, claim, finish, microseconds, readJob, submitSnapshot } from '../src/leases.ts';

/** Short bounds, so a frozen call costs about a second; the lock wait (1 s) stays below the query bound. */
const SETTINGS: DatabaseSettings = {
  lockWaitSeconds: 1,
  statementTimeLimitMs: 3000,
  connectTimeoutMs: 1000,
  queryTimeoutMs: 1500,
};
/** How much later than its bound a call may fail on a loaded 2-core machine. */
const SLACK_MS = 2000;
const LONG_LEASE = { leaseMs: 30_000, maxAttempts: 3 };

const folder = mkdtempSync(join(tmpdir(), 'tasks-lab11-timeouts-'));
const credentialsFile = join(folder, 'credentials.env');
let server: PrivateMysql | undefined;
let db: FreshDatabase | undefined;
const previousEnv = {
  TASKS_LAB_ENV_FILE: process.env.TASKS_LAB_ENV_FILE,
  TASKS_LAB_MYSQL_PORT: process.env.TASKS_LAB_MYSQL_PORT,
};

const previousTmpdir = process.env.TMPDIR;

/**
 * If this process exits before afterAll has closed the server (an uncaught error, a bailed-out
 * run), the server must not stay behind, frozen or not: SIGCONT, SIGKILL, then the folder goes
 * (the server's own folder is inside it). Synchronous: an 'exit' listener cannot wait.
 */
function killServerOnExit(): void {
  const pid = server?.pid();
  if (pid !== undefined) {
    try {
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(folder, { recursive: true, force: true });
}

/** A MariaDB or MySQL server binary to start privately (the labs' native mode has one; Docker mode may not). */
const HAS_SERVER_BINARY = findBinaries().mysqlServer !== undefined;

beforeAll(async () => {
  if (!HAS_SERVER_BINARY) return;
  process.once('exit', killServerOnExit);
  prepareCredentials(credentialsFile);
  // os.tmpdir() reads TMPDIR on every call: the private server's folder is made inside ours.
  process.env.TMPDIR = folder;
  try {
    server = await startPrivateMysql({ credentials: loadCredentials(credentialsFile) });
  } finally {
    restoreEnv({ TMPDIR: previousTmpdir });
  }
  // Every connection this file opens (migrations, pools, drops) goes to the private server.
  process.env.TASKS_LAB_ENV_FILE = credentialsFile;
  process.env.TASKS_LAB_MYSQL_PORT = String(server.port);
  db = await freshDatabase('timeouts', { settings: SETTINGS, connectionLimit: 3 });
}, 60_000);

afterAll(async () => {
  thaw();
  await db?.drop().catch(() => {});
  await server?.close(); // SIGCONT, then SIGKILL, then its data folder goes
  rmSync(folder, { recursive: true, force: true });
  process.removeListener('exit', killServerOnExit);
  restoreEnv(previousEnv);
}, 30_000);

function restoreEnv(values: Record<string, string | undefined>): void {
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}

/**
 * No freeze outlasts this, whatever a test does: a call that ignores its bound then fails its
 * duration assertion (it answers once the server thaws) instead of hanging the file.
 */
const MAX_FREEZE_MS = 8000;
let frozen = false;
let thawTimer: NodeJS.Timeout | undefined;
/**
 * SIGSTOP, then wait until every thread of the server is really stopped (state T in /proc):
 * the signal takes effect a moment after kill() returns, and a query sent in that moment
 * can still be answered (seen on 2 cores: one freeze in five let a SELECT 1 through).
 */
function freeze(): void {
  const pid = server?.pid();
  if (pid === undefined) throw new Error('setup: the private database is not running');
  process.kill(pid, 'SIGSTOP');
  frozen = true;
  thawTimer = setTimeout(thaw, MAX_FREEZE_MS).unref();
  const deadline = Date.now() + 2000;
  while (!allThreadsStopped(pid)) {
    if (Date.now() > deadline) throw new Error(`the private database (pid ${pid}) did not stop within 2 s of SIGSTOP`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2); // a 2 ms pause; freeze() stays synchronous
  }
}

/** Whether every thread of `pid` is in state T (stopped), read from /proc/<pid>/task/<tid>/stat. */
function allThreadsStopped(pid: number): boolean {
  return readdirSync(`/proc/${pid}/task`).every((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'T';
  });
}
function thaw(): void {
  clearTimeout(thawTimer);
  const pid = server?.pid();
  if (frozen && pid !== undefined) process.kill(pid, 'SIGCONT');
  frozen = false;
}

const pool = (): Pool => db!.pool;
/** The rejection of `attempt` and how long it took to come; fails the test if it resolves. */
async function timedRejection(attempt: () => Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const started = Date.now();
  const err = await attempt().then(
    () => new Error('expected the call to fail, but it answered'),
    (e: unknown) => e,
  );
  return { err, ms: Date.now() - started };
}

/** The test's own statement: is this server session still open? Parameters: [connection id]. */
const SESSION_IS_OPEN = 'SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE ID = ?';
const sessionIsOpen = async (connectionId: number) =>
  Number((await pool().query<RowDataPacket[]>(SESSION_IS_OPEN, [connectionId]))[0][0]?.n) > 0;

describe.runIf(HAS_SERVER_BINARY)('the query bound (DB_QUERY_TIMEOUT_MS)', () => {
  it('When the server freezes as a claim starts, Then the claim fails within the bound with a QueryTimeoutError, and the claim repeated after SIGCONT claims the job once (attempts 1) [test:query-timeout-claim-retried-once]', async () => {
    const { jobId } = await submitSnapshot(pool(), [1]);
    freeze();
    let timedOut: { err: unknown; ms: number };
    try {
      // START TRANSACTION gets no answer; the ROLLBACK must not wait behind it either.
      timedOut = await timedRejection(() => claim(pool(), jobId, LONG_LEASE));
    } finally {
      thaw();
    }
    expect(timedOut.err).toBeInstanceOf(QueryTimeoutError);
    expect(timedOut.err).toMatchObject({ code: 'PROTOCOL_SEQUENCE_TIMEOUT' });
    expect(timedOut.ms).toBeGreaterThanOrEqual(SETTINGS.queryTimeoutMs - 5);
    expect(timedOut.ms).toBeLessThan(SETTINGS.queryTimeoutMs + SLACK_MS);

    const retried = await claim(pool(), jobId, LONG_LEASE);
    expect(retried).toBeDefined();
    const row = await readJob(pool(), jobId);
    expect(row).toMatchObject({ status: 'running', attempts: 1, leaseToken: retried!.token });
  });

  it('When the server freezes in the middle of a claim (its UPDATE sent, no answer), Then the claim fails within the bound; after SIGCONT the server runs that UPDATE, reads the close and rolls it back, and the claim repeated claims the job once (attempts 1) [test:query-timeout-half-claim-rolled-back]', async () => {
    const { jobId } = await submitSnapshot(pool(), [3]);
    const claimable = statesThatMayMoveTo('running');
    let sessionId = 0;
    let timedOut: { err: unknown; ms: number };
    try {
      // claim()'s own two statements in claim()'s transaction, the freeze between them.
      timedOut = await timedRejection(() =>
        withTransaction(pool(), async (tx) => {
          const [rows] = await tx.query<RowDataPacket[]>('SELECT CONNECTION_ID() AS id');
          sessionId = Number(rows[0]?.id);
          const [locked] = await tx.query<RowDataPacket[]>(LOCK_CLAIMABLE, [jobId, claimable, LONG_LEASE.maxAttempts]);
          expect(locked).toHaveLength(1);
          freeze();
          await tx.query(CLAIM, [
            randomUUID(),
            microseconds(LONG_LEASE.leaseMs),
            jobId,
            claimable,
            LONG_LEASE.maxAttempts,
          ]);
        }),
      );
    } finally {
      thaw();
    }
    expect(timedOut.err).toBeInstanceOf(QueryTimeoutError);
    expect(timedOut.ms).toBeLessThan(SETTINGS.queryTimeoutMs + SLACK_MS);
    expect(sessionId).toBeGreaterThan(0);
    await waitFor('the frozen session to end after SIGCONT', async () => !(await sessionIsOpen(sessionId)), {
      timeoutMs: 10_000,
    });
    expect(await readJob(pool(), jobId)).toMatchObject({ status: 'queued', attempts: 0, leaseToken: null });

    const retried = await claim(pool(), jobId, LONG_LEASE);
    expect(await readJob(pool(), jobId)).toMatchObject({ status: 'running', attempts: 1, leaseToken: retried!.token });
  });

  it('When the answer to a finish COMMIT is lost (the server frozen after the UPDATE), Then the finish fails within the bound; after SIGCONT the COMMIT has applied, and the same finish repeated changes nothing: one publication [test:query-timeout-finish-retried-once]', async () => {
    const { jobId } = await submitSnapshot(pool(), [2]);
    const claimed = await claim(pool(), jobId, LONG_LEASE);
    expect(claimed).toBeDefined();
    const token = claimed!.token;
    const resultRef = artifactName(jobId, token);
    let sessionId = 0;
    let timedOut: { err: unknown; ms: number };
    try {
      // finish()'s own statement in finish()'s transaction; the freeze comes between the
      // UPDATE's answer and the COMMIT, which the frozen server receives but cannot answer.
      timedOut = await timedRejection(() =>
        withTransaction(pool(), async (tx) => {
          const [rows] = await tx.query<RowDataPacket[]>('SELECT CONNECTION_ID() AS id');
          sessionId = Number(rows[0]?.id);
          const [published] = await tx.query<ResultSetHeader>(FINISH, [
            resultRef,
            jobId,
            statesThatMayMoveTo('succeeded'),
            token,
          ]);
          expect(published.affectedRows).toBe(1);
          freeze();
        }),
      );
    } finally {
      thaw();
    }
    expect(timedOut.err).toBeInstanceOf(QueryTimeoutError);
    expect(timedOut.ms).toBeLessThan(SETTINGS.queryTimeoutMs + SLACK_MS);
    expect(sessionId).toBeGreaterThan(0); // the freeze came after the UPDATE, not before the transaction
    // Once the server has read the COMMIT and then the close, that session is gone: the outcome is final.
    await waitFor('the frozen session to end after SIGCONT', async () => !(await sessionIsOpen(sessionId)), {
      timeoutMs: 10_000,
    });

    // A lost answer is not a rollback: the server committed what it had received.
    const afterThaw = await readJob(pool(), jobId);
    expect(afterThaw).toMatchObject({ status: 'succeeded', resultRef });
    const updatedAt = afterThaw!.updatedAt.getTime();
    // The caller, not knowing, repeats the finish: the conditions no longer match, nothing changes.
    expect(await finish(pool(), jobId, token, resultRef)).toBe(false);
    const final = await readJob(pool(), jobId);
    expect(final).toMatchObject({ status: 'succeeded', attempts: 1, resultRef });
    expect(final!.updatedAt.getTime()).toBe(updatedAt);
  });

  it('When a query times out, Then its connection is closed, so the next query on a one-connection pool does not wait behind the lost one: it fails within the connect bound, and after SIGCONT the pool answers [test:query-timeout-closes-connection]', async () => {
    const onePool = await openJobsDatabase({ database: db!.name, settings: SETTINGS, connectionLimit: 1 });
    try {
      await onePool.query('SELECT 1'); // the pool's one connection is open and set up
      freeze();
      let first: { err: unknown; ms: number };
      let second: { err: unknown; ms: number };
      try {
        first = await timedRejection(() => onePool.query('SELECT 1'));
        // Had the timed-out connection stayed in use, this would wait for it as long as the server sleeps.
        second = await timedRejection(() => onePool.query('SELECT 1'));
      } finally {
        thaw();
      }
      expect(first.err).toBeInstanceOf(QueryTimeoutError);
      expect(first.ms).toBeLessThan(SETTINGS.queryTimeoutMs + SLACK_MS);
      expect(second.err).toMatchObject({ code: 'ETIMEDOUT' });
      expect(second.ms).toBeLessThan(SETTINGS.connectTimeoutMs + SLACK_MS);
      const [rows] = await onePool.query<RowDataPacket[]>('SELECT 1 AS one');
      expect(rows[0]?.one).toBe(1);
    } finally {
      thaw();
      await onePool.end().catch(() => {});
    }
  });
});

describe.runIf(HAS_SERVER_BINARY)('the connect bound (DB_CONNECT_TIMEOUT_MS)', () => {
  it('When the server is frozen (its port accepts, nothing answers), Then opening the pool fails within the bound with DatabaseUnavailableError (ETIMEDOUT) [test:connect-timeout]', async () => {
    freeze();
    let opened: { err: unknown; ms: number };
    try {
      opened = await timedRejection(() => openJobsDatabase({ database: db!.name, settings: SETTINGS }));
    } finally {
      thaw();
    }
    expect(opened.err).toBeInstanceOf(DatabaseUnavailableError);
    expect((opened.err as Error).message).toContain('ETIMEDOUT');
    expect(opened.ms).toBeGreaterThanOrEqual(SETTINGS.connectTimeoutMs - 5);
    expect(opened.ms).toBeLessThan(SETTINGS.connectTimeoutMs + SLACK_MS);
  });
});
