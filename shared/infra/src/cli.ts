// pnpm infra:up | infra:down | infra:status
import { InfraError, ensureInfra, infraStatus, stopInfra } from './services.ts';

const log = (line: string) => console.log(line);

async function main(command: string | undefined): Promise<number> {
  switch (command) {
    case 'up': {
      const { mode, started } = await ensureInfra({ log });
      log(
        started.length > 0
          ? `up (${mode} mode): started ${started.join(' and ')}`
          : `up (${mode} mode): already running`,
      );
      return printStatus();
    }
    case 'down':
      await stopInfra(log);
      return 0;
    case 'status':
      return printStatus();
    default:
      console.error('usage: pnpm infra:up | pnpm infra:down | pnpm infra:status');
      return 2;
  }
}

async function printStatus(): Promise<number> {
  const statuses = await infraStatus();
  for (const s of statuses) {
    const name = s.service === 'redis' ? 'redis' : 'mysql';
    const pid = s.pid ? `, pid ${s.pid}` : '';
    const version = s.version ? ` ${s.version}` : '';
    log(
      `${name.padEnd(6)} ${s.address}  mode ${s.mode}${pid}  ${s.healthy ? `healthy${version}` : `NOT healthy: ${s.detail}`}`,
    );
  }
  log('credentials: .env.tasks (mode 0600, git-ignored; passwords are never printed)');
  return statuses.every((s) => s.healthy) ? 0 : 1;
}

main(process.argv[2]).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof InfraError) {
      console.error("The labs' services cannot start:");
      for (const p of err.problems) console.error(`  ${p.service}: ${p.message}`);
    } else {
      console.error(err instanceof Error ? err.message : err);
    }
    process.exitCode = 1;
  },
);
