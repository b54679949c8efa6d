// Every query of the process has a time limit: mysql2 gives a single query a `timeout`, but a
// pool has no default, and a query sent to a server that stopped answering would wait as long as
// the server does. boundEveryQuery gives each of the pool's connections that default, and closes
// a connection whose query ran out of time (why: its comment). openJobsDatabase (mysql-pool.ts)
// applies it to every connection the pool opens.
import { errorCode } from '@tasks-lab/lab-kit';
import { QueryTimeoutError } from './errors.ts';

/** mysql2's code for a query whose `timeout` passed (its message: "Query inactivity timeout"). */
export const MYSQL2_QUERY_TIMEOUT = 'PROTOCOL_SEQUENCE_TIMEOUT';

/** The little of mysql2's own (callback) connection that boundEveryQuery touches. */
export interface CoreConnection {
  query(...args: unknown[]): unknown;
  destroy(): void;
}
type ResultCallback = (err: unknown, ...results: unknown[]) => void;
/** A query command already built: mysql2's pool.query builds one and hands it to the connection. */
interface QueryCommand {
  timeout?: number;
  onResult?: ResultCallback;
}
const isQueryCommand = (sql: unknown): sql is QueryCommand =>
  typeof sql === 'object' && sql !== null && 'onResult' in sql;

/**
 * Gives every query on one of the pool's connections a time limit of `timeoutMs` (unless it
 * sets its own), and closes the connection when one passes. That covers the session set-up
 * and START TRANSACTION, COMMIT and ROLLBACK too: mysql2 sends them as queries. mysql2 has a
 * per-query `timeout` but no default for a pool, hence this wrapper, in the one place every
 * connection of the process is set up.
 *
 * What mysql2 3 does when a query's time is up (read in its source, and seen against a frozen
 * server in test/database.timeouts.test.ts): it fails that query with PROTOCOL_SEQUENCE_TIMEOUT, and
 * nothing more. The connection stays open, waiting for the late answer; pool.query does not
 * give it back to the pool; and a command sent on it next waits behind the lost one with its
 * own timer not started, so a transaction's ROLLBACK would hang as long as the server does.
 * So the connection is closed here, before the caller hears of the timeout: whoever holds it
 * gets a closed connection (an error at once), never a stuck one. The server rolls back an
 * open transaction when it reads the close; a COMMIT or an autocommit statement it had
 * already read still takes effect. The caller cannot know which: QueryTimeoutError says so.
 *
 * (execute(), the prepared-statement path, is not wrapped: mysql2 3 bounds its EXECUTE but not
 * the PREPARE before it, so a frozen server would still hold it. The labs use query() only.)
 */
export function boundEveryQuery(connection: CoreConnection, timeoutMs: number): void {
  const send = connection.query.bind(connection);
  const closeOnTimeout =
    (callback: ResultCallback): ResultCallback =>
    (err, ...results) => {
      if (errorCode(err) !== MYSQL2_QUERY_TIMEOUT) return callback(err, ...results);
      connection.destroy();
      callback(new QueryTimeoutError(timeoutMs));
    };
  connection.query = (sql: unknown, ...rest: unknown[]) => {
    if (isQueryCommand(sql)) {
      sql.timeout ??= timeoutMs;
      if (sql.onResult) sql.onResult = closeOnTimeout(sql.onResult);
      return send(sql, ...rest);
    }
    // query(sql | options, values?, callback?): the callback comes last (the promise API always passes one).
    const options: { sql?: unknown; timeout?: number } = typeof sql === 'string' ? { sql } : { ...(sql as object) };
    options.timeout ??= timeoutMs;
    const last = rest.length - 1;
    if (typeof rest[last] === 'function') rest[last] = closeOnTimeout(rest[last] as ResultCallback);
    return send(options, ...rest);
  };
}
