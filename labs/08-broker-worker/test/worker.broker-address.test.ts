// The course's troubleshooting entry "connection refused, NOAUTH, or it keeps using an old
// port": a process on the host given the Compose address (redis:6379), or an old port
// typed by hand that nothing listens on, must fail clearly and soon, saying where the broker really is; it must not
// retry for ever with a line of ENOTFOUND every second. The fix is brokerConnection().
import { createServer } from 'node:net';
import { startTsProcess, type LabProcess } from '@tasks-lab/lab-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { LAB_DIR } from '../src/artifacts.ts';
import { brokerPort } from '../src/broker.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const queueName = uniqueQueueName('address');
const started: LabProcess[] = [];
afterAll(async () => {
  await Promise.all(started.map((proc) => proc.kill('SIGKILL')));
  await obliterateQueues([queueName]);
});

/** A port that was free a moment ago: nothing listens on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** Starts a worker fixture at a wrong address and waits at most `withinMs` for it to exit. */
async function runMisaddressed(
  host: string,
  port: number,
  withinMs: number,
  script = 'test/fixtures/misaddressed-worker.ts',
) {
  const proc = startTsProcess(script, { cwd: LAB_DIR, args: [host, String(port)], env: { EXPORTS_QUEUE: queueName } });
  started.push(proc);
  const startedAt = Date.now();
  const timer = new Promise<'still running'>((done) => setTimeout(() => done('still running'), withinMs).unref());
  const exit = await Promise.race([proc.exited, timer]);
  return { exit, output: proc.output(), ms: Date.now() - startedAt };
}

const BOUND_MS = 20_000;

describe('a worker given the wrong broker address', () => {
  it(`When the worker on the host is given the Compose address redis:6379, Then it exits 1 within ${BOUND_MS / 1000} s saying it cannot reach the broker and where it is [test:container-address-fails-clearly]`, {
    timeout: 60_000,
  }, async () => {
    const run = await runMisaddressed('redis', 6379, BOUND_MS);
    expect(run.exit, run.output).toEqual({ code: 1, signal: null });
    expect(run.output).toMatch(/cannot reach the broker at redis:6379/);
    expect(run.output).toMatch(new RegExp(`on this machine the lab's Redis is 127\\.0\\.0\\.1:${brokerPort()}`));
    expect(run.output).toMatch(/"redis" is a name inside a Docker Compose network/);
    expect(run.output).not.toMatch(/ready: queue/);
  });

  it(`When the worker is given an old, hand-typed port nothing listens on, Then it exits 1 within ${BOUND_MS / 1000} s naming the lab's port [test:stale-port-fails-clearly]`, {
    timeout: 60_000,
  }, async () => {
    const port = await closedPort();
    const run = await runMisaddressed('127.0.0.1', port, BOUND_MS);
    expect(run.exit, run.output).toEqual({ code: 1, signal: null });
    expect(run.output).toMatch(new RegExp(`cannot reach the broker at 127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED`));
    expect(run.output).toMatch(new RegExp(`port ${port} is not the lab's broker port ${brokerPort()}`));
  });

  it('When the worker from before the check (BullMQ alone) gets redis:6379, Then it is still retrying after 8 s and never says where the broker is (what the tests above reject)', {
    timeout: 60_000,
  }, async () => {
    const run = await runMisaddressed('redis', 6379, 8_000, 'test/fixtures/unchecked-address-worker.ts');
    expect(run.exit).toBe('still running');
    expect(run.output).toMatch(/ENOTFOUND redis|EAI_AGAIN redis/);
    expect(run.output).not.toMatch(/cannot reach the broker|127\.0\.0\.1/);
  });
});
