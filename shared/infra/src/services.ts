// `pnpm infra:up | down | status` and ensureInfra(), which labs call before they
// touch Redis or the database. Up is idempotent and safe to call from several
// processes at once (turbo runs labs in parallel): a lock file serialises it.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  findBinaries,
  installHint,
  mysqlServerVersion,
  redisServerVersion,
  tryAptInstall,
  versionProblem,
  type AptOptions,
  type Binaries,
} from './binaries.ts';
import { loadCredentials, prepareCredentials, type Credentials } from './credentials.ts';
import { dockerDown, dockerEngineRuns, dockerUp } from './docker.ts';
import { nativeMysqlPid, nativeRedisPid, startNativeMysql, startNativeRedis, stopPid } from './native.ts';
import { probeMysql, probeRedis, type ProbeResult } from './probe.ts';
import { credentialsFile, DATA_DIR, ENV_FILE, serviceSettings, type ServiceSettings } from './settings.ts';

export type Service = 'redis' | 'mysql';
export type Mode = 'docker' | 'native';

export interface Problem {
  service: Service;
  code: 'missing-binary' | 'old-version' | 'port-taken' | 'bad-password' | 'not-answering';
  /** What is wrong and how to fix it, in one or two sentences. Never contains a secret. */
  message: string;
}

export class InfraError extends Error {
  constructor(readonly problems: Problem[]) {
    super(problems.map((p) => `${p.service}: ${p.message}`).join('\n'));
    this.name = 'InfraError';
  }
}

const PORT_ENV: Record<Service, string> = { redis: 'TASKS_LAB_REDIS_PORT', mysql: 'TASKS_LAB_MYSQL_PORT' };
const LABEL: Record<Service, string> = { redis: 'Redis', mysql: 'the database' };

export function chooseMode(): Mode {
  const forced = process.env.TASKS_LAB_INFRA_MODE;
  if (forced === 'docker' || forced === 'native') return forced;
  return dockerEngineRuns() ? 'docker' : 'native';
}

function portOf(service: Service, settings: ServiceSettings): number {
  return service === 'redis' ? settings.redisPort : settings.mysqlPort;
}

export async function probe(
  service: Service,
  settings: ServiceSettings,
  credentials: Credentials,
): Promise<ProbeResult> {
  return service === 'redis'
    ? probeRedis(settings.redisPort, credentials.redisPassword, settings.host)
    : probeMysql(settings.mysqlPort, credentials.mysqlUser, credentials.mysqlPassword, settings.host);
}

/** What a running service on our port says about itself, as a problem (or none). */
export function portProblem(service: Service, port: number, result: ProbeResult): Problem | undefined {
  if (result.state === 'auth-failed') {
    return {
      service,
      code: 'bad-password',
      message:
        `port ${port} answers as ${service === 'redis' ? 'Redis' : 'a MySQL server'} but rejects the password in .env.tasks. ` +
        `If it is an earlier tasks-lab instance set up with other passwords, stop it and delete infra/.data; ` +
        `otherwise it belongs to something else: stop that, or choose a free port with ${PORT_ENV[service]}=<port>.`,
    };
  }
  if (result.state === 'other-service') {
    return {
      service,
      code: 'port-taken',
      message:
        `port ${port} is already in use by another program (${result.detail}). ` +
        `Stop it (see: ss -ltnp 'sport = :${port}'), or choose a free port with ${PORT_ENV[service]}=<port>.`,
    };
  }
  return undefined;
}

/** Checks binaries (local mode), versions and ports before anything starts. */
export async function preflight(
  services: Service[],
  options: {
    mode: Mode;
    settings?: ServiceSettings;
    credentials?: Credentials;
    binaries?: Binaries;
    log?: (line: string) => void;
    apt?: AptOptions;
  },
): Promise<Problem[]> {
  const settings = options.settings ?? serviceSettings();
  const credentials = options.credentials ?? loadCredentials();
  const problems: Problem[] = [];
  let binaries = options.binaries ?? findBinaries();
  if (options.mode === 'native') {
    const missing = services.filter((s) => (s === 'redis' ? !binaries.redisServer : !binaries.mysqlServer));
    const apt = missing.length > 0 ? await tryAptInstall(missing, options.log ?? (() => {}), options.apt) : undefined;
    if (apt?.installed) binaries = findBinaries();
    const aptFailed = apt?.error ? ` (installing it with apt failed: ${apt.error})` : '';
    for (const service of services) {
      const binary = service === 'redis' ? binaries.redisServer : binaries.mysqlServer;
      if (!binary) {
        const name = service === 'redis' ? 'redis-server' : 'mariadbd or mysqld';
        problems.push({
          service,
          code: 'missing-binary',
          message: `no ${name} found${aptFailed}: ${installHint(service)}`,
        });
        continue;
      }
      const found = service === 'redis' ? { version: redisServerVersion(binary) } : (mysqlServerVersion(binary) ?? {});
      const tooOld = versionProblem(service, found);
      if (tooOld)
        problems.push({ service, code: 'old-version', message: `${tooOld} (${binary}). ${installHint(service)}` });
    }
  }
  for (const service of services) {
    const problem = portProblem(service, portOf(service, settings), await probe(service, settings, credentials));
    if (problem) problems.push(problem);
  }
  return problems;
}

// ---- a lock so that parallel labs start the services once ----------------------

const LOCK_FILE = join(DATA_DIR, 'up.lock');

/**
 * Runs `work` holding a lock file: created exclusively (O_EXCL), holding the holder's pid, so a
 * lock whose holder died is taken over instead of waited on. `onWait` is told once who holds it.
 */
export async function withFileLock<T>(
  file: string,
  work: () => Promise<T>,
  options: { timeoutMs?: number; onWait?: (holder: number) => void } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const deadline = Date.now() + timeoutMs;
  let told = false;
  for (;;) {
    try {
      closeSync(openSync(file, 'wx'));
      writeFileSync(file, String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(file, 'utf8').trim() || '0');
      let alive = false;
      try {
        if (holder > 0) {
          process.kill(holder, 0);
          alive = true;
        }
      } catch {
        /* the holder died: the lock is stale */
      }
      if (!alive && holder > 0) rmSync(file, { force: true });
      if (alive && !told) {
        options.onWait?.(holder);
        told = true;
      }
      if (Date.now() > deadline) throw new Error(`another process has held ${file} for ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(file, { force: true });
  }
}

const withLock = <T>(work: () => Promise<T>) => withFileLock(LOCK_FILE, work);

// ---- up / down / status ---------------------------------------------------------

export interface UpOptions {
  services?: Service[];
  log?: (line: string) => void;
}

/**
 * Brings the services up if they are not healthy already. Idempotent; throws an
 * InfraError listing every problem (with its fix) when something is in the way.
 */
export async function ensureInfra(options: UpOptions = {}): Promise<{ mode: Mode; started: Service[] }> {
  const services = options.services ?? ['redis', 'mysql'];
  const log = options.log ?? (() => {});
  const { created } = prepareCredentials();
  if (created) log('generated passwords into .env.tasks (mode 0600, git-ignored)');
  const credentials = loadCredentials();
  const settings = serviceSettings();

  // Fast path, no lock: everything already answers with our passwords.
  const states = await Promise.all(services.map((s) => probe(s, settings, credentials)));
  if (states.every((s) => s.state === 'healthy')) return { mode: readMode() ?? 'native', started: [] };
  // Credentials other than .env.tasks (TASKS_LAB_ENV_FILE) belong to services someone else runs:
  // the soak's private Redis and database, which it crashes on purpose. A process restarted while
  // one of them is down must wait for it, never start the labs' own service on its port (that
  // would take the port, rewrite infra/.data's pid file and outlive the soak).
  if (credentialsFile() !== ENV_FILE) {
    throw new InfraError(
      services
        .filter((_, i) => states[i]?.state !== 'healthy')
        .map((service) => ({
          service,
          code: 'not-answering' as const,
          message: `127.0.0.1:${portOf(service, settings)} does not answer; it is run outside the labs (TASKS_LAB_ENV_FILE is set), so it is not started here`,
        })),
    );
  }

  return withLock(async () => {
    const mode = chooseMode();
    const problems = await preflight(services, { mode, settings, credentials, log });
    if (problems.length > 0) throw new InfraError(problems);
    const started: Service[] = [];
    if (mode === 'docker') {
      const down: Service[] = [];
      for (const s of services) if ((await probe(s, settings, credentials)).state !== 'healthy') down.push(s);
      if (down.length > 0) {
        log('starting Redis and MySQL with docker compose (infra/docker-compose.yml)');
        dockerUp();
        started.push(...down);
      }
    } else {
      const binaries = findBinaries();
      for (const service of services) {
        if ((await probe(service, settings, credentials)).state === 'healthy') continue;
        log(`starting ${LABEL[service]} from local binaries on 127.0.0.1:${portOf(service, settings)}`);
        if (service === 'redis') await startNativeRedis(binaries.redisServer!, settings, credentials);
        else {
          const flavour = mysqlServerVersion(binaries.mysqlServer!)?.flavour ?? 'mariadb';
          await startNativeMysql(
            { server: binaries.mysqlServer!, installDb: binaries.mysqlInstallDb, flavour },
            settings,
            credentials,
          );
        }
        started.push(service);
      }
    }
    writeMode(mode);
    return { mode, started };
  });
}

const MODE_FILE = join(DATA_DIR, 'mode');
function writeMode(mode: Mode) {
  mkdirSync(DATA_DIR, { recursive: true, mode: 0o700 });
  writeFileSync(MODE_FILE, mode + '\n');
}
export function readMode(): Mode | undefined {
  if (!existsSync(MODE_FILE)) return undefined;
  const mode = readFileSync(MODE_FILE, 'utf8').trim();
  return mode === 'docker' || mode === 'native' ? mode : undefined;
}

export async function stopInfra(log: (line: string) => void = () => {}): Promise<void> {
  const mode = readMode() ?? 'native';
  if (mode === 'docker') {
    dockerDown();
    log('stopped the docker compose services (data kept in their volumes)');
    return;
  }
  if (await stopPid(nativeRedisPid())) log('stopped Redis (data kept in infra/.data/redis)');
  if (await stopPid(nativeMysqlPid())) log('stopped the database (data kept in infra/.data/mysql)');
}

export interface ServiceStatus {
  service: Service;
  address: string;
  mode: Mode | 'unknown';
  pid?: number;
  healthy: boolean;
  version?: string;
  detail: string;
}

export async function infraStatus(): Promise<ServiceStatus[]> {
  const credentials = loadCredentials();
  const settings = serviceSettings();
  const mode = readMode() ?? 'unknown';
  const statuses: ServiceStatus[] = [];
  for (const service of ['redis', 'mysql'] as const) {
    const result = await probe(service, settings, credentials);
    const problem = portProblem(service, portOf(service, settings), result);
    statuses.push({
      service,
      address: `127.0.0.1:${portOf(service, settings)}`,
      mode,
      pid: mode === 'native' ? (service === 'redis' ? nativeRedisPid() : nativeMysqlPid()) : undefined,
      healthy: result.state === 'healthy',
      version: result.version,
      detail: problem?.message ?? result.detail,
    });
  }
  return statuses;
}
