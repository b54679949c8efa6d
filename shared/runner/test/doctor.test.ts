// `pnpm lab doctor` on this machine: one block, a line per topic, and never a password (the
// block is made to be pasted into a question). A port held by a program that is not the labs'
// Redis shows as a problem with its advice; a save in a folder is seen by fs.watch.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { countLeakedSecrets } from '@tasks-lab/infra';
import { examineMachine, fileEventsLine, formatDoctor, isWsl, nodeLine, pnpmLine } from '../src/doctor.ts';
import { REPO_ROOT } from '../src/labs.ts';

/** A TCP server that accepts and says nothing: "something else" on a port. */
async function silentServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.on('error', () => {}));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('pnpm lab doctor', () => {
  it('When a student runs it, Then it prints one block with every topic and no generated password, and exits 0 only without a problem [test:doctor-block-without-secrets]', {
    timeout: 60_000,
  }, () => {
    const run = spawnSync('pnpm', ['--silent', 'lab', 'doctor'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 50_000 });
    const text = `${run.stdout}${run.stderr}`;
    for (const topic of ['node', 'pnpm', 'system', 'docker', 'redis', 'database', 'credentials', 'file events'])
      expect(text).toMatch(new RegExp(`^[✓✗] ${topic}\\s`, 'm'));
    expect(text).toContain(process.version);
    expect(countLeakedSecrets(text)).toBe(0);
    const problems = (text.match(/^✗ /gm) ?? []).length;
    expect(run.status).toBe(problems === 0 ? 0 : 1);
  });

  it('When the labs Redis port is held by a program that is not Redis, Then the redis line is a problem that says so, with advice [test:doctor-port-held-by-another]', {
    timeout: 30_000,
  }, async () => {
    const { server, port } = await silentServer();
    try {
      vi.stubEnv('TASKS_LAB_REDIS_PORT', String(port));
      const lines = await examineMachine();
      const redis = lines.find((line) => line.topic === 'redis');
      expect(redis).toMatchObject({ ok: false });
      expect(redis?.found).toContain(`127.0.0.1:${port}`);
      expect(formatDoctor(lines)).toMatch(/^✗ redis .*\n\s+→ /m);
    } finally {
      server.close();
    }
  });

  it('When a file is saved in a local folder, Then fs.watch reports it and the line says how fast [test:doctor-file-events]', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'doctor-'));
    try {
      const line = await fileEventsLine(folder, 5000);
      expect(line).toMatchObject({ topic: 'file events', ok: true });
      expect(line.found).toMatch(/seen by fs\.watch in \d+ ms/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('When versions are read, Then Node below 20.19 and a pnpm other than the pinned one are problems with advice; WSL is told by its kernel [test:doctor-versions]', () => {
    expect(nodeLine('v20.20.2', '^20.19.0').ok).toBe(true);
    expect(nodeLine('v22.1.0', '^20.19.0').ok).toBe(true);
    expect(nodeLine('v20.11.1', '^20.19.0')).toMatchObject({ ok: false, advice: expect.stringContaining('20.19') });
    expect(pnpmLine('12.4.2', 'pnpm@12.4.2').ok).toBe(true);
    expect(pnpmLine('9.15.0', 'pnpm@12.4.2')).toMatchObject({ ok: false, advice: 'npm install --global pnpm@12.4.2' });
    expect(pnpmLine(undefined, 'pnpm@12.4.2')).toMatchObject({ found: 'not found', ok: false });
    expect(isWsl('5.15.153.1-microsoft-standard-WSL2')).toBe(true);
    expect(isWsl('6.1.0-18-amd64')).toBe(false);
  });
});
