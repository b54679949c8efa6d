// Finding the local service binaries, their versions, and installing them with apt
// where that is possible (root on Debian/Ubuntu). Otherwise: a message that says
// exactly what to install.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { MIN_VERSIONS, versionAtLeast } from './settings.ts';
import { parseServerVersion } from './probe.ts';

const SEARCH_PATH = [
  '/usr/sbin',
  '/usr/bin',
  '/usr/local/sbin',
  '/usr/local/bin',
  '/opt/homebrew/bin',
  '/opt/homebrew/sbin',
];

export function findBinary(names: string[]): string | undefined {
  const path = (process.env.PATH ?? '').split(':').concat(SEARCH_PATH);
  for (const name of names) {
    for (const dir of path) {
      const candidate = `${dir}/${name}`;
      if (dir && existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

export interface Binaries {
  redisServer?: string;
  /** mariadbd, or mysqld (which may itself be MariaDB on Debian). */
  mysqlServer?: string;
  mysqlInstallDb?: string;
}

export function findBinaries(): Binaries {
  return {
    redisServer: findBinary(['redis-server']),
    mysqlServer: findBinary(['mariadbd', 'mysqld']),
    mysqlInstallDb: findBinary(['mariadb-install-db', 'mysql_install_db']),
  };
}

export function redisServerVersion(binary: string): string | undefined {
  const out = execFileSync(binary, ['--version'], { encoding: 'utf8' });
  return /v=(\d+\.\d+\.\d+)/.exec(out)?.[1];
}

export function mysqlServerVersion(binary: string): { flavour: 'mariadb' | 'mysql'; version: string } | undefined {
  const out = execFileSync(binary, ['--version'], { encoding: 'utf8' });
  return parseServerVersion(out.replace(/^.*?Ver\s+/, ''));
}

export function versionProblem(
  service: 'redis' | 'mysql',
  found: { flavour?: string; version?: string },
): string | undefined {
  if (!found.version) return `could not read the ${service} server's version`;
  const minimum =
    service === 'redis' ? MIN_VERSIONS.redis : found.flavour === 'mariadb' ? MIN_VERSIONS.mariadb : MIN_VERSIONS.mysql;
  if (versionAtLeast(found.version, minimum)) return undefined;
  const name = service === 'redis' ? 'Redis' : found.flavour === 'mariadb' ? 'MariaDB' : 'MySQL';
  return `${name} ${found.version} is too old: the labs need ${name} ${minimum} or newer`;
}

const APT_PACKAGES = { redis: 'redis-server', mysql: 'mariadb-server' } as const;

export const installHint = (service: 'redis' | 'mysql') =>
  service === 'redis'
    ? 'install Redis 6.2+ (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis), or run Docker and use infra/docker-compose.yml'
    : 'install MariaDB 10.6+ or MySQL 8.0.1+ (Debian/Ubuntu: sudo apt-get install mariadb-server; macOS: brew install mariadb), or run Docker and use infra/docker-compose.yml';

export interface AptOptions {
  /** The apt-get to run (default: the one on PATH). */
  aptGet?: string;
  /** Whether we may install system packages (default: running as root). */
  asRoot?: boolean;
}

export interface AptOutcome {
  installed: boolean;
  /** Why apt failed, in apt's own words (its `E:` lines). */
  error?: string;
}

/**
 * Installs the missing packages with apt when we are root on a Debian-like system, showing
 * apt's output line by line as it comes (an install takes a minute; silence looks like a hang).
 * Undefined when apt is not an option here (not root, or no apt-get): the caller explains
 * what to install by hand.
 */
export async function tryAptInstall(
  services: Array<'redis' | 'mysql'>,
  log: (line: string) => void,
  options: AptOptions = {},
): Promise<AptOutcome | undefined> {
  const asRoot = options.asRoot ?? (typeof process.getuid === 'function' && process.getuid() === 0);
  const aptGet = options.aptGet ?? findBinary(['apt-get']);
  if (!asRoot || !aptGet) return undefined;
  const packages = services.map((s) => APT_PACKAGES[s]);
  log(`installing the system packages ${packages.join(', ')} with apt-get (this takes a minute)`);
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...packages]]) {
    const run = await runApt(aptGet, args, log);
    if (run.status !== 0)
      return { installed: false, error: `apt-get ${args[0]} exited with ${run.status}: ${run.errors}` };
  }
  return { installed: true };
}

/** Runs apt-get, passing each line it prints to `log` as it comes; keeps what it says went wrong. */
function runApt(
  aptGet: string,
  args: string[],
  log: (line: string) => void,
): Promise<{ status: number | string; errors: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const child = spawn(aptGet, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stderrLines: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => log(`apt: ${line}`));
    createInterface({ input: child.stderr }).on('line', (line) => {
      log(`apt: ${line}`);
      stderrLines.push(line);
    });
    child.once('error', (err) => resolve({ status: 'not started', errors: err.message }));
    child.once('close', (code, signal) => {
      // apt marks its errors "E:"; anything else on stderr (debconf notes, "W:") only when there is no "E:".
      const marked = stderrLines.filter((line) => line.startsWith('E:'));
      const errors = (marked.length > 0 ? marked : stderrLines.slice(-5)).join(' | ') || 'no error message';
      resolve({ status: code ?? `signal ${signal}`, errors });
    });
  });
}
