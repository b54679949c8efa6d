import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tryAptInstall } from '../src/binaries.ts';
import { freePort } from '../src/private-redis.ts';
import { preflight } from '../src/services.ts';

// A stand-in for apt-get that prints what the real one prints. It sits first on PATH as
// well, so no version of the code under test can reach the real apt-get from a test.
const FAKE_APT = (install: { lines: string[]; errors: string[]; status: number }) => `#!/bin/sh
case "$1" in
  update) echo "Hit:1 http://deb.debian.org/debian bookworm InRelease"; echo "Reading package lists..."; exit 0 ;;
  install)
${install.lines.map((l) => `    echo '${l}'`).join('\n')}
${install.errors.map((l) => `    echo '${l}' >&2`).join('\n')}
    exit ${install.status} ;;
esac
exit 1
`;

let binDir: string;
let savedPath: string | undefined;
beforeEach(() => {
  binDir = mkdtempSync(join(tmpdir(), 'fake-apt-'));
  savedPath = process.env.PATH;
  process.env.PATH = `${binDir}:${savedPath ?? ''}`;
});
afterEach(() => {
  process.env.PATH = savedPath;
  rmSync(binDir, { recursive: true, force: true });
});

function fakeAptGet(install: { lines: string[]; errors: string[]; status: number }): string {
  const path = join(binDir, 'apt-get');
  writeFileSync(path, FAKE_APT(install));
  chmodSync(path, 0o755);
  return path;
}

const brokenInstall = {
  lines: ['Reading package lists...', 'Building dependency tree...'],
  errors: ['E: Unable to locate package redis-server'],
  status: 100,
};

describe('installing a missing service with apt', () => {
  it('When apt installs a package, Then its progress lines reach the log as they come [test:apt-progress-shown]', async () => {
    const aptGet = fakeAptGet({
      lines: ['Unpacking redis-server (5:7.0.15-1~deb12u1) ...', 'Setting up redis-server (5:7.0.15-1~deb12u1) ...'],
      errors: [],
      status: 0,
    });
    const log: string[] = [];
    const outcome = await tryAptInstall(['redis'], (line) => log.push(line), { aptGet, asRoot: true });
    expect(outcome).toEqual({ installed: true });
    expect(log.join('\n')).toMatch(/Reading package lists/);
    expect(log.join('\n')).toMatch(/Setting up redis-server/);
  });

  it('When apt fails, Then its error is logged and returned, not swallowed [test:apt-error-shown]', async () => {
    const aptGet = fakeAptGet(brokenInstall);
    const log: string[] = [];
    const outcome = await tryAptInstall(['redis'], (line) => log.push(line), { aptGet, asRoot: true });
    expect(log.join('\n')).toMatch(/E: Unable to locate package redis-server/);
    expect(outcome).toMatchObject({ installed: false });
    expect(outcome?.error).toMatch(/exit(ed)? .*100.*E: Unable to locate package redis-server/);
  });

  it('When apt fails during preflight, Then the missing-binary problem carries its error and the command to run by hand', async () => {
    const aptGet = fakeAptGet(brokenInstall);
    const problems = await preflight(['redis'], {
      mode: 'native',
      binaries: {}, // nothing installed
      apt: { aptGet, asRoot: true },
      settings: { host: '127.0.0.1', redisPort: await freePort(), mysqlPort: await freePort() },
      credentials: {
        redisPassword: 'x'.repeat(32),
        mysqlRootPassword: 'y'.repeat(32),
        mysqlUser: 'tasks',
        mysqlPassword: 'z'.repeat(32),
      },
    });
    expect(problems.map((p) => p.code)).toEqual(['missing-binary']);
    expect(problems[0]?.message).toMatch(/E: Unable to locate package redis-server/);
    expect(problems[0]?.message).toContain('sudo apt-get install redis-server');
  });

  it('When we are not root, Then apt is not tried (the hint says what to install by hand)', async () => {
    const aptGet = fakeAptGet(brokenInstall);
    const log: string[] = [];
    expect(
      await tryAptInstall(['redis', 'mysql'], (line) => log.push(line), { aptGet, asRoot: false }),
    ).toBeUndefined();
    expect(log).toEqual([]);
  });
});
