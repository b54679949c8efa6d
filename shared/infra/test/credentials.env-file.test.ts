import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countLeakedSecrets, loadCredentials, prepareCredentials, redactUrl } from '../src/credentials.ts';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('credentials', () => {
  it('When no env file exists, Then one is generated with mode 0600 and three distinct passwords', () => {
    dir = mkdtempSync(join(tmpdir(), 'creds-'));
    const file = join(dir, '.env.tasks');
    expect(prepareCredentials(file).created).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const c = loadCredentials(file);
    expect(new Set([c.redisPassword, c.mysqlRootPassword, c.mysqlPassword]).size).toBe(3);
    expect(c.redisPassword).toMatch(/^[0-9a-f]{32}$/);
  });

  it('When the env file exists, Then it is never overwritten', () => {
    dir = mkdtempSync(join(tmpdir(), 'creds-'));
    const file = join(dir, '.env.tasks');
    prepareCredentials(file);
    const before = readFileSync(file, 'utf8');
    expect(prepareCredentials(file).created).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('When a key is missing, Then the error names the key and no value', () => {
    dir = mkdtempSync(join(tmpdir(), 'creds-'));
    const file = join(dir, '.env.tasks');
    writeFileSync(file, 'TASKS_REDIS_PASSWORD=abc123secret\n', { mode: 0o600 });
    expect(() => loadCredentials(file)).toThrow(/TASKS_MYSQL_ROOT_PASSWORD/);
    try {
      loadCredentials(file);
    } catch (err) {
      expect(String(err)).not.toContain('abc123secret');
    }
  });

  it('When a URL carries a password, Then redactUrl hides it', () => {
    expect(redactUrl('redis://default:s3cret@127.0.0.1:6384/0')).toBe('redis://default:***@127.0.0.1:6384/0');
    expect(redactUrl('mysql://tasks:s3cret@127.0.0.1:3307/tasks_lab11')).toBe(
      'mysql://tasks:***@127.0.0.1:3307/tasks_lab11',
    );
  });

  it('When output contains a generated password, Then countLeakedSecrets finds it; clean output counts 0', () => {
    dir = mkdtempSync(join(tmpdir(), 'creds-'));
    const file = join(dir, '.env.tasks');
    const c = loadCredentials(file);
    expect(countLeakedSecrets(`connecting with ${c.redisPassword}\n`, file)).toBe(1);
    expect(countLeakedSecrets(`redis://default:***@127.0.0.1:6384\n`, file)).toBe(0);
    expect(countLeakedSecrets('anything', join(dir, 'missing'))).toBe(0);
  });
});
