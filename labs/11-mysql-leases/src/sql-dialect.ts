// The only statements that differ between MySQL 8.4 and MariaDB 10.11 in this lab, in one
// place. Everything else is written to the subset both servers run (a test fails if a
// non-portable form appears in any other file: test/portable-sql.test.ts).
//
// The statement time limit:
//   MySQL    SET SESSION max_execution_time = <ms>      only read-only SELECTs, milliseconds
//   MariaDB  SET SESSION max_statement_time = <seconds> every statement kind, seconds
// MariaDB does not know max_execution_time (error 1193): a session set-up that used it
// would fail on every connection. So the server's flavour is read once, from VERSION().
import type { RowDataPacket } from 'mysql2/promise';

export type SqlFlavour = 'mysql' | 'mariadb';

/** Works on both: VERSION() is "10.11.19-MariaDB-..." on MariaDB, "8.4.3" on MySQL. */
export const READ_SERVER_VERSION = 'SELECT VERSION() AS version';

export function flavourOf(version: string): SqlFlavour {
  return /mariadb/i.test(version) ? 'mariadb' : 'mysql';
}

/** The session setting that makes the server stop a statement running longer than `ms`. */
export function statementTimeLimitSql(flavour: SqlFlavour, ms: number): string {
  const limitMs = Math.max(1, Math.round(ms));
  // The value is a number we computed, never input; SET does not take `?` parameters everywhere.
  return flavour === 'mariadb' ? `max_statement_time = ${limitMs / 1000}` : `max_execution_time = ${limitMs}`;
}

/** The error numbers the limit raises: MariaDB 1969, MySQL 3024. */
export const STATEMENT_TIME_LIMIT_ERRNOS: readonly number[] = [1969, 3024];

/** How each server names the variable, for reading it back. */
export function statementTimeLimitVariable(flavour: SqlFlavour): string {
  return flavour === 'mariadb' ? 'max_statement_time' : 'max_execution_time';
}

export interface VersionRow extends RowDataPacket {
  version: string;
}
