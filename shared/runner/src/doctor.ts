// `pnpm lab doctor`: what this machine gives the course, in one block a student can paste into a
// question. Every line is a fact read off the machine (a version, a port, a mode), never a secret:
// the passwords in .env.tasks are used to ask the services for their versions and are never
// printed (test/doctor.test.ts greps the block for them).
//
//   node, pnpm     the versions running, against package.json's engines and packageManager
//   system         the OS, and whether this is WSL (its file events and ports behave differently)
//   docker         whether an engine answers: the services run in docker compose, else natively
//   redis, database  each service's address, what answers there (ours, down, or something else
//                  holding the port), its version and mode
//   credentials    whether .env.tasks exists with mode 0600
//   file events    whether a save in the repository is seen by fs.watch (a WSL mount or a network
//                  folder may deliver none: `pnpm lab watch` then has to poll)
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, watch } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { release } from 'node:os';
import { join } from 'node:path';
import {
  credentialsFile,
  dockerEngineRuns,
  findBinaries,
  infraStatus,
  portInUse,
  readMode,
  serviceSettings,
  type ServiceStatus,
} from '@tasks-lab/infra';
import { REPO_ROOT, rootManifest } from './labs.ts';

/** One line of the block: what was looked at, what was found, and whether it is a problem. */
export interface DoctorLine {
  topic: string;
  found: string;
  ok: boolean;
  /** What to do about a problem, when there is one. */
  advice?: string;
}

/** Node's major.minor against the engines range's lowest ^major.minor (the course runs on 20.19 and later). */
export function nodeLine(version: string, engines: string | undefined): DoctorLine {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  const ok = major > 20 || (major === 20 && minor >= 19);
  return {
    topic: 'node',
    found: `${version} (package.json asks ${engines ?? 'nothing'})`,
    ok,
    advice: ok ? undefined : 'install Node 20.19 or later (nvm install 20)',
  };
}

export function pnpmLine(running: string | undefined, pinned: string | undefined): DoctorLine {
  const wanted = pinned?.replace(/^pnpm@/, '');
  if (!running) return { topic: 'pnpm', found: 'not found', ok: false, advice: `npm install --global pnpm@${wanted}` };
  const ok = wanted === undefined || running === wanted;
  return {
    topic: 'pnpm',
    found: `${running} (pinned ${wanted ?? 'nowhere'})`,
    ok,
    advice: ok ? undefined : `npm install --global pnpm@${wanted}`,
  };
}

/** WSL's kernel names itself in its release string ("...-microsoft-standard-WSL2"). */
export const isWsl = (kernelRelease: string): boolean => /microsoft/i.test(kernelRelease);

function systemLine(): DoctorLine {
  const wsl = isWsl(release());
  return {
    topic: 'system',
    found: `${process.platform} ${process.arch}, kernel ${release()}${wsl ? ', WSL' : ''}`,
    ok: process.platform !== 'win32',
    advice: process.platform === 'win32' ? 'run the course inside WSL 2 (the labs use POSIX signals)' : undefined,
  };
}

function pnpmVersion(): string | undefined {
  const result = spawnSync('pnpm', ['--version'], { encoding: 'utf8', timeout: 20_000 });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function dockerLine(): DoctorLine {
  if (dockerEngineRuns())
    return { topic: 'docker', found: 'an engine answers: the services run in docker compose', ok: true };
  const { redisServer, mysqlServer } = findBinaries();
  const found = [redisServer, mysqlServer].filter(Boolean).join(', ');
  const ok = redisServer !== undefined && mysqlServer !== undefined;
  return {
    topic: 'docker',
    found: `no engine answers: the services run from local binaries (${found || 'none found'})`,
    ok,
    advice: ok ? undefined : 'install redis-server and mariadb-server (apt install), or start a Docker engine',
  };
}

/** A service's line from infra's own status (which asks with the stored password, printing none). */
export function serviceLine(status: ServiceStatus): DoctorLine {
  const name = status.service === 'mysql' ? 'database' : 'redis';
  const version = status.version ? `, ${status.version}` : '';
  const mode = status.mode === 'unknown' ? '' : ` (${status.mode})`;
  return {
    topic: name,
    found: `${status.address} ${status.healthy ? 'healthy' : 'not ready'}${version}${mode}: ${status.detail}`,
    ok: status.healthy,
    advice: status.healthy ? undefined : 'pnpm infra:up starts a service that is down; the line above says the rest',
  };
}

/** Before the credentials exist: only whether something already holds the labs' ports. */
async function portLines(): Promise<DoctorLine[]> {
  const settings = serviceSettings();
  const lines: DoctorLine[] = [];
  for (const [topic, port] of [
    ['redis', settings.redisPort],
    ['database', settings.mysqlPort],
  ] as const) {
    const taken = await portInUse(port);
    lines.push({
      topic,
      found: `127.0.0.1:${port} ${taken ? 'is held by a process, but no credentials exist to ask it' : 'is free'}`,
      ok: !taken,
      advice: taken
        ? `another program holds the port: stop it, or move the labs' ${topic} with TASKS_LAB_${topic === 'redis' ? 'REDIS' : 'MYSQL'}_PORT`
        : 'pnpm infra:up starts it',
    });
  }
  return lines;
}

function credentialsLine(file: string): DoctorLine {
  if (!existsSync(file))
    return { topic: 'credentials', found: `${file}: not made yet`, ok: false, advice: 'pnpm infra:up makes them' };
  const mode = statSync(file).mode & 0o777;
  return {
    topic: 'credentials',
    found: `${file}, mode ${mode.toString(8).padStart(4, '0')}`,
    ok: mode === 0o600,
    advice: mode === 0o600 ? undefined : `chmod 600 ${file}`,
  };
}

/**
 * Saves a file in a folder of the repository and waits for fs.watch to report it. No event within
 * `timeoutMs`: a watcher there has to poll (WSL's /mnt drives, network folders).
 */
export async function fileEventsLine(folder = REPO_ROOT, timeoutMs = 3000): Promise<DoctorLine> {
  const dir = await mkdtemp(join(folder, '.doctor-watch-'));
  const started = performance.now();
  try {
    const seen = await new Promise<boolean>((resolve) => {
      const watcher = watch(dir, () => {
        watcher.close();
        clearTimeout(timer);
        resolve(true);
      });
      const timer = setTimeout(() => {
        watcher.close();
        resolve(false);
      }, timeoutMs);
      void writeFile(join(dir, 'saved.txt'), 'saved\n');
    });
    const ms = Math.round(performance.now() - started);
    return seen
      ? { topic: 'file events', found: `a save was seen by fs.watch in ${ms} ms`, ok: true }
      : {
          topic: 'file events',
          found: `no event within ${timeoutMs} ms of a save`,
          ok: false,
          advice: 'a watcher must poll here (WSL /mnt drives and network folders deliver no events)',
        };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function repositoryLine(): DoctorLine {
  const head = spawnSync('git', ['-C', REPO_ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  const changed = spawnSync('git', ['-C', REPO_ROOT, 'status', '--porcelain'], { encoding: 'utf8' });
  const count = changed.status === 0 ? changed.stdout.split('\n').filter(Boolean).length : undefined;
  return {
    topic: 'repository',
    found:
      head.status === 0
        ? `${REPO_ROOT} at ${head.stdout.trim()}, ${count ?? '?'} changed file(s)`
        : `${REPO_ROOT} (not a git checkout)`,
    ok: true,
  };
}

/** Every line, in the block's order. Reads the machine; changes nothing but a temp folder for the watch test. */
export async function examineMachine(): Promise<DoctorLine[]> {
  const pkg = rootManifest<{ packageManager?: string; engines?: { node?: string } }>();
  const file = credentialsFile();
  const services = existsSync(file) ? (await infraStatus()).map(serviceLine) : await portLines();
  return [
    nodeLine(process.version, pkg.engines?.node),
    pnpmLine(pnpmVersion(), pkg.packageManager),
    systemLine(),
    dockerLine(),
    ...services,
    credentialsLine(file),
    await fileEventsLine(),
    repositoryLine(),
  ];
}

/** The block: a header, one line per topic (✓ or ✗), advice under each problem, a closing count. */
export function formatDoctor(lines: readonly DoctorLine[], mode = readMode()): string {
  const width = Math.max(...lines.map((line) => line.topic.length));
  const body = lines.flatMap((line) => [
    `${line.ok ? '✓' : '✗'} ${line.topic.padEnd(width)}  ${line.found}`,
    ...(line.ok || !line.advice ? [] : [`  ${' '.repeat(width)}  → ${line.advice}`]),
  ]);
  const problems = lines.filter((line) => !line.ok).length;
  return [
    `tasks-lab doctor (infra mode ${mode ?? 'not chosen yet'}; this block holds no password: paste it into a question)`,
    ...body,
    problems === 0 ? 'no problem found' : `${problems} problem(s) found`,
  ].join('\n');
}
