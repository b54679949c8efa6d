// The schema text must read the same whichever server answers. These are the forms MySQL 8.4 and
// MariaDB 10.11 give in information_schema for the same column or check (the MariaDB ones as read
// on the reference machine; the MySQL ones as MySQL 8 documents and prints them).
import { describe, expect, it } from 'vitest';
import { normaliseCheck, normaliseDefault, normaliseType } from '../src/schema.ts';

describe('schema normalisation', () => {
  it('When a type carries a display width (MariaDB), Then it reads as MySQL 8.4 prints it, except tinyint(1), which both print', () => {
    expect(normaliseType('int(11)')).toBe('int');
    expect(normaliseType('bigint(20) unsigned')).toBe('bigint unsigned');
    expect(normaliseType('INT')).toBe('int');
    expect(normaliseType('tinyint(1)')).toBe('tinyint(1)');
    expect(normaliseType('tinyint(4)')).toBe('tinyint');
    expect(normaliseType('varchar(64)')).toBe('varchar(64)');
  });

  it('When a default comes quoted (MariaDB) or bare (MySQL), Then both read as SQL writes it, and no default is none', () => {
    expect(normaliseDefault("'queued'", 'varchar(16)', true)).toBe("'queued'");
    expect(normaliseDefault('queued', 'varchar(16)', false)).toBe("'queued'");
    expect(normaliseDefault('NULL', 'varchar(16)', true)).toBeUndefined();
    expect(normaliseDefault(null, 'varchar(16)', false)).toBeUndefined();
    expect(normaliseDefault('0', 'int', true)).toBe('0');
    expect(normaliseDefault('0', 'int', false)).toBe('0');
    expect(normaliseDefault('current_timestamp(6)', 'datetime(6)', true)).toBe('current_timestamp(6)');
    expect(normaliseDefault('CURRENT_TIMESTAMP(6)', 'datetime(6)', false)).toBe('current_timestamp(6)');
    expect(normaliseDefault("'it''s'", 'varchar(16)', true)).toBe("'it's'");
  });

  it('When a check clause comes from MySQL (introducers, outer parentheses) or MariaDB (back-quotes), Then both fold to one text', () => {
    const mysql = "(`status` in (_utf8mb4'queued',_utf8mb4'running'))";
    const mariadb = "`status` in ('queued','running')";
    expect(normaliseCheck(mysql)).toBe("status in ('queued','running')");
    expect(normaliseCheck(mariadb)).toBe(normaliseCheck(mysql));
    expect(normaliseCheck('(`attempts` >= 0)')).toBe('attempts >= 0');
    // Only a pair that encloses the whole clause goes.
    expect(normaliseCheck('(a > 0) or (b > 0)')).toBe('(a > 0) or (b > 0)');
  });
});
