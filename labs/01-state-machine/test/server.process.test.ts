// src/server.ts as a real OS process: it prints where it listens, stops cleanly on
// SIGTERM, refuses a bad PORT, and forgets every job when it is killed and started again.
import { launchProcess, startTsProcess, withResources } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { launchApi, postJson, request, SERVER_SCRIPT } from '../scripts/api-process.ts';
import { runRestartDrill } from '../scripts/drill-restart.ts';
import { SHUTDOWN_GRACE_MS } from '../src/server.ts';

describe('server: the API as its own process', () => {
  it('When started with PORT=0, Then it prints its URL and the /docs address, and answers there', async () => {
    await withResources(undefined, async (res) => {
      const ready = /listening on (http:\/\/127\.0\.0\.1:\d+) \(API docs: (\S+)\)/;
      const server = await launchProcess(SERVER_SCRIPT, { ready, env: { PORT: '0' }, resources: res });
      const [, url, docs] = ready.exec(server.output())!;
      expect(docs).toBe(`${url}/docs`);
      const answer = await postJson(`${url}/exports`, JSON.stringify({ product_ids: [1] }));
      expect(answer.status).toBe(202);
    });
  });

  it('When sent SIGTERM, Then it closes the server and exits with code 0', async () => {
    await withResources(undefined, async (res) => {
      const { proc } = await launchApi(res);
      const exit = await proc.stop(SHUTDOWN_GRACE_MS);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(proc.output()).toContain('SIGTERM: closing');
    });
  });

  it('When PORT is not a port number, Then it refuses to start and says which variable and which bounds [test:bad-port-refused]', async () => {
    await withResources(undefined, async (res) => {
      const server = res.add(startTsProcess(SERVER_SCRIPT, { env: { PORT: '70000' } }), (p) => p.kill());
      expect(await server.exited).toEqual({ code: 1, signal: null });
      expect(server.output()).toContain('PORT must be a whole number from 0 to 65535, got "70000"');
    });
  });

  it('When the port is already taken, Then the second server exits 1 with one line naming EADDRINUSE [test:port-in-use-one-line]', async () => {
    await withResources(undefined, async (res) => {
      const first = await launchApi(res);
      const port = new URL(first.url).port;
      const second = res.add(startTsProcess(SERVER_SCRIPT, { env: { PORT: port } }), (p) => p.kill());
      expect(await second.exited).toEqual({ code: 1, signal: null });
      const output = second.output().trim();
      expect(output).toContain('EADDRINUSE');
      expect(output.split('\n')).toHaveLength(1);
    });
  });

  it('When one process accepts jobs, Then another process does not know them (each has its own memory) [test:each-process-own-memory]', async () => {
    await withResources(undefined, async (res) => {
      const first = await launchApi(res);
      const second = await launchApi(res);
      const submitted = await postJson(`${first.url}/exports`, JSON.stringify({ product_ids: [1] }));
      const location = submitted.headers.get('location')!;
      expect((await request(`${first.url}${location}`)).status).toBe(200);
      expect((await request(`${second.url}${location}`)).status).toBe(404);
    });
  });

  it('When the process is SIGKILLed and restarted, Then the old job id answers 404 and new submits work', async () => {
    const lines: string[] = [];
    const drill = await runRestartDrill({ log: (line) => lines.push(line) });
    expect(drill.statusBeforeKill).toBe(200);
    expect(drill.exit.signal).toBe('SIGKILL');
    expect(drill.afterRestart.status).toBe(404);
    expect(drill.afterRestart.json).toMatchObject({ error: 'job-not-found' });
    expect(drill.newSubmitStatus).toBe(202);
    expect(lines.some((line) => line.startsWith('sent SIGKILL'))).toBe(true);
  });
});
