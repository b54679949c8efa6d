import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sleep, startTsProcess, waitFor, withResources } from '@tasks-lab/lab-kit';
import { launchLabServer, readJob, submitBackgroundExport } from '../scripts/lab-server.ts';

const SERVER_SCRIPT = fileURLToPath(new URL('../src/server.ts', import.meta.url));
const REGISTRY_DEMO = fileURLToPath(new URL('../scripts/registry-demo.ts', import.meta.url));

describe('src/server.ts as a real process', () => {
  it('When SIGTERM arrives during a 30 s export, Then the server waits the grace period, cancels it, reports 0 remaining and exits 0', async () => {
    await withResources(undefined, async (res) => {
      const server = await launchLabServer(res, {}, { EXPORT_WORK_MS: '30000', SHUTDOWN_GRACE_MS: '300' });
      const { body } = await submitBackgroundExport(server.url, [1, 2]);
      await waitFor('running', async () => (await readJob(server.url, body.id)).body.status === 'running');
      const exit = await server.process.stop(10_000);
      expect(exit.code).toBe(0);
      expect(server.process.output()).toContain('draining 1 background task(s), grace 300 ms');
      expect(server.process.output()).toContain(`job ${body.id} cancelled`);
      expect(server.process.output()).toContain('shutdown: 0 finished within grace, 1 cancelled, 0 remaining');
    });
  });

  it('When SIGINT (Ctrl-C) arrives with nothing running, Then the server reports nothing to drain and exits 0', async () => {
    await withResources(undefined, async (res) => {
      const server = await launchLabServer(res, {}, { SHUTDOWN_GRACE_MS: '10000' });
      const exit = await server.process.kill('SIGINT');
      expect(exit.code).toBe(0);
      expect(server.process.output()).toContain('shutdown: 0 finished within grace, 0 cancelled, 0 remaining');
    });
  });

  it('When SHUTDOWN_GRACE_MS is 0, Then the server refuses to start with one line naming the variable and exits 1 [test:bad-timing-refused]', async () => {
    const server = startTsProcess(SERVER_SCRIPT, { env: { PORT: '0', SHUTDOWN_GRACE_MS: '0' } });
    const exit = await server.exited;
    expect(exit.code).toBe(1);
    expect(server.output().trim()).toMatch(
      /^invalid options: SHUTDOWN_GRACE_MS must be a whole number of milliseconds from 1 to \d+, got "0"$/,
    );
  });

  it('When Ctrl-C comes twice during a slow export, Then the second one exits at once with code 130 [test:second-signal-exits-130]', async () => {
    await withResources(undefined, async (res) => {
      const server = await launchLabServer(res, {}, { EXPORT_WORK_MS: '30000', SHUTDOWN_GRACE_MS: '20000' });
      const { body } = await submitBackgroundExport(server.url, [1, 2]);
      await waitFor('running', async () => (await readJob(server.url, body.id)).body.status === 'running');
      process.kill(server.process.pid, 'SIGINT');
      await server.process.waitForOutput(/draining 1 background task/, 10_000);
      // A person's second press comes well after the first: within onShutdown's 1 s window a
      // repeat is taken for pnpm's relayed copy of the same Ctrl-C and ignored.
      await sleep(1_500);
      const exit = await server.process.kill('SIGINT');
      expect(exit.code).toBe(130);
      expect(server.process.output()).toContain('SIGINT again: exiting now without waiting');
    });
  });

  it('When the port is already taken, Then the second server exits 1 with one line naming EADDRINUSE [test:port-in-use-one-line]', async () => {
    await withResources(undefined, async (res) => {
      const first = await launchLabServer(res);
      const second = res.add(startTsProcess(SERVER_SCRIPT, { env: { PORT: new URL(first.url).port } }), (p) =>
        p.kill(),
      );
      expect(await second.exited).toEqual({ code: 1, signal: null });
      const output = second.output().trim();
      expect(output).toContain('EADDRINUSE');
      expect(output.split('\n')).toHaveLength(1);
    });
  });

  it('When the registry demo runs, Then it prints cleanup, the job ends cancelled and no task remains [test:registry-demo-prints-cleanup]', async () => {
    await withResources(undefined, async (res) => {
      const demo = res.add(startTsProcess(REGISTRY_DEMO), (p) => p.kill());
      expect(await demo.exited).toEqual({ code: 0, signal: null });
      // Whole lines: the registry's and the demo's, all on stdout.
      const lines = demo.output().trim().split('\n');
      expect(lines).toContain('cleanup');
      expect(lines).toContain('job state cancelled');
      expect(lines).toContain('remaining 0');
      expect(demo.output()).toMatch(/finished in grace 0, cancelled 1 after \d+ ms/);
    });
  }, 20_000);
});
