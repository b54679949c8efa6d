// src/server.ts as a real OS process: it prints where it listens, stops cleanly on
// SIGTERM, and forgets every job when it is killed and started again.
import { startTsProcess } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { postJson, request, SERVER_SCRIPT, withApiProcess } from '../scripts/api-process.ts';
import { runRestartDrill } from '../scripts/drill-restart.ts';

describe('server: the API as its own process', () => {
  it('When started with PORT=0, Then it prints its URL and the /docs address, and answers there', async () => {
    const server = startTsProcess(SERVER_SCRIPT, { env: { PORT: '0' } });
    try {
      const [line, url] = await server.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+) \(API docs: \S+\/docs\)/, 30_000);
      expect(line).toContain(`${url}/docs`);
      const answer = await postJson(`${url}/exports`, JSON.stringify({ product_ids: [1] }));
      expect(answer.status).toBe(202);
    } finally {
      await server.kill();
    }
  });

  it('When sent SIGTERM, Then it closes the server and exits with code 0', async () => {
    const server = startTsProcess(SERVER_SCRIPT, { env: { PORT: '0' } });
    await server.waitForOutput(/listening on/, 30_000);
    const exit = await server.kill('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
  });

  it('When one process accepts jobs, Then another process does not know them (each has its own memory)', async () => {
    await withApiProcess({}, async (first) => {
      const submitted = await postJson(`${first.url}/exports`, JSON.stringify({ product_ids: [1] }));
      const location = submitted.headers.get('location')!;
      await withApiProcess({}, async (second) => {
        expect((await request(`${first.url}${location}`)).status).toBe(200);
        expect((await request(`${second.url}${location}`)).status).toBe(404);
      });
    });
  });

  it('When the process is SIGKILLed and restarted, Then the old job id answers 404 and new submits work', async () => {
    const lines: string[] = [];
    const drill = await runRestartDrill({}, (line) => lines.push(line));
    expect(drill.statusBeforeKill).toBe(200);
    expect(drill.exit.signal).toBe('SIGKILL');
    expect(drill.afterRestart.status).toBe(404);
    expect(drill.afterRestart.json).toMatchObject({ error: 'job-not-found' });
    expect(drill.newSubmitStatus).toBe(202);
    expect(lines.some((line) => line.startsWith('sent SIGKILL'))).toBe(true);
  });
});
