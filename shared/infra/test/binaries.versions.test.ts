import { describe, expect, it } from 'vitest';
import { versionProblem } from '../src/binaries.ts';
import { parseServerVersion } from '../src/probe.ts';
import { versionAtLeast } from '../src/settings.ts';

describe('versions', () => {
  it('When versions are compared, Then each part counts as a number (10.11 is newer than 10.6)', () => {
    expect(versionAtLeast('10.11.19', '10.6.0')).toBe(true);
    expect(versionAtLeast('6.0.16', '6.2.0')).toBe(false);
    expect(versionAtLeast('8.0.1', '8.0.1')).toBe(true);
  });

  it('When the server says what it is, Then MariaDB and MySQL are told apart', () => {
    expect(parseServerVersion('10.11.19-MariaDB-0+deb12u1')).toEqual({ flavour: 'mariadb', version: '10.11.19' });
    expect(parseServerVersion('8.4.3')).toEqual({ flavour: 'mysql', version: '8.4.3' });
  });

  it('When a binary is too old, Then the problem names the product, its version and the minimum', () => {
    expect(versionProblem('redis', { version: '6.0.16' })).toBe(
      'Redis 6.0.16 is too old: the labs need Redis 6.2.0 or newer',
    );
    expect(versionProblem('mysql', { flavour: 'mariadb', version: '10.5.2' })).toMatch(
      /MariaDB 10.5.2 is too old.*10.6.0/,
    );
    expect(versionProblem('mysql', { flavour: 'mysql', version: '5.7.44' })).toMatch(/MySQL 5.7.44 is too old.*8.0.1/);
    expect(versionProblem('redis', { version: '7.0.15' })).toBeUndefined();
    expect(versionProblem('mysql', { flavour: 'mariadb', version: '10.11.19' })).toBeUndefined();
  });
});
