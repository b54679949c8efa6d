// `pnpm lab sql NN` hands the client its credentials in a defaults file, mode 0600, under the
// git-ignored infra/.data: never on a command line (which `ps` shows to every user) and never printed.
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadCredentials } from '../src/credentials.ts';
import { CLIENT_DEFAULTS_FILE, sqlClientCommand, writeClientDefaults } from '../src/sql-client.ts';

describe('the SQL client command', () => {
  it('When the defaults file is written, Then it is 0600, under infra/.data, and holds the app user and password', () => {
    const file = writeClientDefaults();
    expect(file).toBe(CLIENT_DEFAULTS_FILE);
    expect(file).toMatch(/\/infra\/\.data\/client\.cnf$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const { mysqlUser, mysqlPassword } = loadCredentials();
    expect(readFileSync(file, 'utf8')).toMatch(
      new RegExp(
        `^\\[client\\]\\nhost=127\\.0\\.0\\.1\\nport=\\d+\\nuser=${mysqlUser}\\npassword=${mysqlPassword}$`,
        'm',
      ),
    );
  });

  it('When the client is started, locally or in Docker, Then no password is on its command line', () => {
    const { mysqlPassword, mysqlRootPassword } = loadCredentials();
    for (const mode of ['native', 'docker'] as const) {
      const { command, args } = sqlClientCommand('tasks_lab11', ['--table', '-e', 'SELECT 1'], mode, false);
      const line = [command, ...args].join(' ');
      expect(line).not.toContain(mysqlPassword);
      expect(line).not.toContain(mysqlRootPassword);
      expect(line).toContain('tasks_lab11');
    }
    expect(sqlClientCommand('tasks_lab11', [], 'native', true).args[0]).toBe(
      `--defaults-extra-file=${CLIENT_DEFAULTS_FILE}`,
    );
    expect(sqlClientCommand('tasks_lab11', [], 'docker', false).args).toContain('-T');
  });
});
