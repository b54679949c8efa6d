// Docker mode: where a Docker engine runs, infra/docker-compose.yml starts redis:7
// and mysql:8.4 with the passwords from .env.tasks.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ENV_FILE, INFRA_DIR } from './settings.ts';

export const COMPOSE_FILE = join(INFRA_DIR, 'docker-compose.yml');

/** True only when a Docker engine answers (the client alone is not enough). */
export function dockerEngineRuns(): boolean {
  const result = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { stdio: 'ignore', timeout: 10_000 });
  return result.status === 0;
}

function compose(args: string[]): { ok: boolean; output: string } {
  const result = spawnSync(
    'docker',
    ['compose', '-f', COMPOSE_FILE, '--env-file', ENV_FILE, '-p', 'tasks-lab', ...args],
    {
      encoding: 'utf8',
      timeout: 10 * 60_000,
    },
  );
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

export function dockerUp(): void {
  const { ok, output } = compose(['up', '-d', '--wait']);
  if (!ok) throw new Error(`docker compose up failed:\n${output}`);
}

export function dockerDown(): void {
  const { ok, output } = compose(['stop']);
  if (!ok) throw new Error(`docker compose stop failed:\n${output}`);
}

export function dockerServicesRunning(): boolean {
  const { ok, output } = compose(['ps', '--status', 'running', '--services']);
  return ok && /redis|mysql/.test(output);
}
