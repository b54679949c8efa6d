// What a lab keeps in the labs' services between runs, and how `pnpm lab NN --reset` removes it:
// the lab's database (tables, rows and migration records: the ledger lives in it) and every
// Redis key under the lab's BullMQ prefix (queues, finished jobs, and any Job Scheduler the
// lab registered, whose keys live under the same prefix).
import { Redis } from 'ioredis';
import mysql, { type RowDataPacket } from 'mysql2/promise';
import { labDatabase, labPrefix, mysqlOptions, redisOptions } from './connections.ts';

/** Tables of a database, by name. Parameters: [database]. */
const LIST_TABLES =
  'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? ORDER BY table_name';

export interface DroppedDatabase {
  database: string;
  /** False when there was nothing to drop. */
  existed: boolean;
  tables: string[];
}

/** Drops the lab's own database (tasks_labNN), if it exists, and says which tables it held. */
export async function dropLabDatabase(lab: string): Promise<DroppedDatabase> {
  const database = labDatabase(lab);
  const { connectionLimit: _poolOnly, ...options } = mysqlOptions(database);
  const connection = await mysql.createConnection({ ...options, database: undefined });
  try {
    const [schemas] = await connection.query<RowDataPacket[]>(
      'SELECT schema_name FROM information_schema.schemata WHERE schema_name = ?',
      [database],
    );
    if (schemas.length === 0) return { database, existed: false, tables: [] };
    const [tables] = await connection.query<RowDataPacket[]>(LIST_TABLES, [database]);
    // labDatabase() built the name from two checked digits: identifiers cannot be `?` parameters.
    await connection.query(`DROP DATABASE \`${database}\``);
    return { database, existed: true, tables: tables.map((row) => String(row.name)) };
  } finally {
    await connection.end();
  }
}

export interface DeletedKeys {
  prefix: string;
  deleted: number;
}

/** Deletes every key under the lab's BullMQ prefix (`tasks-labNN:`), scanning in batches. */
export async function deleteLabKeys(lab: string): Promise<DeletedKeys> {
  const prefix = labPrefix(lab);
  const client = new Redis(redisOptions({ maxRetriesPerRequest: 1, enableOfflineQueue: true }));
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) deleted += await client.unlink(...keys);
    } while (cursor !== '0');
    return { prefix, deleted };
  } finally {
    client.disconnect();
  }
}
