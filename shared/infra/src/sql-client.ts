// `pnpm lab sql NN`: the lab's database in the command-line client, with its credentials, so that
// a student never digs a port, user or password out of .env.tasks. The password goes into a
// client defaults file (mode 0600, under the git-ignored infra/.data), which the client reads
// itself: it is never printed and never on a command line that `ps` shows.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findBinary } from './binaries.ts';
import { loadCredentials } from './credentials.ts';
import { COMPOSE_FILE } from './docker.ts';
import type { Mode } from './services.ts';
import { DATA_DIR, ENV_FILE, serviceSettings } from './settings.ts';

/** The client's defaults file: [client] host, port, user and password for the labs' database. */
export const CLIENT_DEFAULTS_FILE = join(DATA_DIR, 'client.cnf');

/** Writes (or rewrites) the defaults file from .env.tasks, mode 0600. Returns its path. */
export function writeClientDefaults(file = CLIENT_DEFAULTS_FILE): string {
  const { host, mysqlPort } = serviceSettings();
  const { mysqlUser, mysqlPassword } = loadCredentials();
  mkdirSync(DATA_DIR, { recursive: true, mode: 0o700 });
  const lines = [
    '# Written by `pnpm lab sql` from .env.tasks. Mode 0600: it holds the password.',
    '[client]',
    `host=${host}`,
    `port=${mysqlPort}`,
    `user=${mysqlUser}`,
    `password=${mysqlPassword}`,
    '',
  ];
  writeFileSync(file, lines.join('\n'), { mode: 0o600 });
  chmodSync(file, 0o600); // an existing file keeps its mode on write
  return file;
}

export interface ClientCommand {
  command: string;
  args: string[];
}

export class NoSqlClientError extends Error {
  constructor() {
    super(
      'no MySQL client found (mariadb or mysql): on Debian/Ubuntu sudo apt-get install mariadb-client; on macOS brew install mariadb',
    );
    this.name = 'NoSqlClientError';
  }
}

/**
 * The client command for `database`, with the client's own arguments after it (`-e`, `--table`).
 * Local mode: the mariadb (or mysql) binary reading the defaults file. Docker mode: the client
 * inside the container, which takes the password from the container's own environment.
 */
export function sqlClientCommand(
  database: string,
  clientArgs: string[],
  mode: Mode,
  interactive: boolean,
): ClientCommand {
  if (mode === 'docker') {
    const inContainer = 'MYSQL_PWD="$MYSQL_PASSWORD" exec mysql -u"$MYSQL_USER" "$@"';
    return {
      command: 'docker',
      args: [
        'compose',
        '-f',
        COMPOSE_FILE,
        '--env-file',
        ENV_FILE,
        '-p',
        'tasks-lab',
        'exec',
        ...(interactive ? [] : ['-T']),
        'mysql',
        'sh',
        '-c',
        inContainer,
        'sh',
        database,
        ...clientArgs,
      ],
    };
  }
  const client = findBinary(['mariadb', 'mysql']);
  if (!client) throw new NoSqlClientError();
  // --defaults-extra-file must be the client's first option.
  return { command: client, args: [`--defaults-extra-file=${writeClientDefaults()}`, database, ...clientArgs] };
}
