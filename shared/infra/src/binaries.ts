// Finding the local service binaries, their versions, and installing them with apt
// where that is possible (root on Debian/Ubuntu). Otherwise: a message that says
// exactly what to install.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { MIN_VERSIONS, versionAtLeast } from './settings.ts';
import { parseServerVersion } from './probe.ts';

const SEARCH_PATH = ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin', '/opt/homebrew/bin', '/opt/homebrew/sbin'];

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

export function versionProblem(service: 'redis' | 'mysql', found: { flavour?: string; version?: string }): string | undefined {
  if (!found.version) return `could not read the ${service} server's version`;
  const minimum = service === 'redis' ? MIN_VERSIONS.redis : found.flavour === 'mariadb' ? MIN_VERSIONS.mariadb : MIN_VERSIONS.mysql;
  if (versionAtLeast(found.version, minimum)) return undefined;
  const name = service === 'redis' ? 'Redis' : found.flavour === 'mariadb' ? 'MariaDB' : 'MySQL';
  return `${name} ${found.version} is too old: the labs need ${name} ${minimum} or newer`;
}

const APT_PACKAGES = { redis: 'redis-server', mysql: 'mariadb-server' } as const;

export const installHint = (service: 'redis' | 'mysql') =>
  service === 'redis'
    ? 'install Redis 6.2+ (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis), or run Docker and use infra/docker-compose.yml'
    : 'install MariaDB 10.6+ or MySQL 8.0.1+ (Debian/Ubuntu: sudo apt-get install mariadb-server; macOS: brew install mariadb), or run Docker and use infra/docker-compose.yml';

/** Installs the missing packages with apt when we are root on a Debian-like system. */
export function tryAptInstall(services: Array<'redis' | 'mysql'>, log: (line: string) => void): boolean {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !findBinary(['apt-get'])) return false;
  const packages = services.map((s) => APT_PACKAGES[s]);
  log(`installing ${packages.join(', ')} with apt-get (this takes a minute)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
  if (update.status !== 0) return false;
  const install = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { stdio: 'ignore', env });
  return install.status === 0;
}
