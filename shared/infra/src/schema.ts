// A lab's schema as one plain text, the same on MySQL 8.4 and MariaDB 10.11: what `pnpm lab schema NN`
// prints and what labs/NN-*/migrations/schema.txt holds. It is read back from the server's
// information_schema after the lab's whole migration chain ran, not from the migration files, so it
// shows what the chain really built.
//
// The two servers describe the same table differently; each difference is folded here, once:
//   integer display widths   MariaDB prints int(11), MySQL 8.4 int            -> int (tinyint(1), BOOLEAN, stays)
//   JSON                     MariaDB stores longtext with CHECK (json_valid()) -> json, check left out
//   defaults                 MariaDB quotes strings and writes NULL as text; MySQL does neither
//   functions                current_timestamp(6) / CURRENT_TIMESTAMP(6), DEFAULT_GENERATED -> lower case, dropped
//   check clauses            spacing and back-quotes differ                    -> white space and quotes folded
// The migration ledger (schema_migrations) belongs to the migration runner, not to a lesson: left out.
import type mysql from 'mysql2/promise';
import type { RowDataPacket } from 'mysql2/promise';

/** Parameters of each: [database]. Ordered so that the text is the same whichever server answers. */
const SCHEMA_QUERIES = {
  databaseCollation:
    'SELECT default_collation_name AS collation_name FROM information_schema.schemata WHERE schema_name = ?',
  columns:
    'SELECT table_name, column_name, column_type, is_nullable, column_default, extra, collation_name ' +
    'FROM information_schema.columns WHERE table_schema = ? ORDER BY table_name, ordinal_position',
  indexes:
    'SELECT table_name, index_name, non_unique, column_name, sub_part ' +
    'FROM information_schema.statistics WHERE table_schema = ? ORDER BY table_name, index_name, seq_in_index',
  foreignKeys:
    'SELECT k.table_name, k.constraint_name, k.column_name, k.referenced_table_name, k.referenced_column_name, r.delete_rule, r.update_rule ' +
    'FROM information_schema.key_column_usage k JOIN information_schema.referential_constraints r ' +
    'ON r.constraint_schema = k.constraint_schema AND r.constraint_name = k.constraint_name ' +
    'WHERE k.table_schema = ? AND k.referenced_table_name IS NOT NULL ORDER BY k.table_name, k.constraint_name, k.ordinal_position',
  // MySQL's check_constraints has no table name: the table comes from table_constraints.
  checks:
    'SELECT t.table_name, t.constraint_name, c.check_clause ' +
    'FROM information_schema.table_constraints t JOIN information_schema.check_constraints c ' +
    'ON c.constraint_schema = t.constraint_schema AND c.constraint_name = t.constraint_name ' +
    "WHERE t.table_schema = ? AND t.constraint_type = 'CHECK' ORDER BY t.table_name, t.constraint_name",
} as const;

const LEDGER_TABLE = 'schema_migrations';

interface Column {
  name: string;
  type: string;
  nullable: boolean;
  default: string | undefined;
  extra: string;
  collation: string | undefined;
}

/** information_schema's column names come back upper case on MySQL 8 and lower case on MariaDB. */
function field(row: RowDataPacket, name: string): unknown {
  return row[name] ?? row[name.toUpperCase()];
}
const text = (row: RowDataPacket, name: string): string => String(field(row, name) ?? '');

const TEXT_TYPES = /^(char|varchar|tinytext|text|mediumtext|longtext|enum|set)\b/;

/**
 * int(11) -> int, bigint(20) unsigned -> bigint unsigned: MySQL 8.4 no longer prints widths. Both
 * still print tinyint(1), what BOOLEAN becomes, so that one stays.
 */
export function normaliseType(type: string): string {
  const lower = type.toLowerCase();
  return lower.startsWith('tinyint(1)')
    ? lower
    : lower.replace(/^(tinyint|smallint|mediumint|int|bigint)\(\d+\)/, '$1');
}

/**
 * A column default as SQL would write it: 'queued', 0, current_timestamp(6), or undefined for none.
 * `quoted` says whether the server already quotes string literals (MariaDB does, MySQL does not).
 */
export function normaliseDefault(raw: unknown, type: string, quoted: boolean): string | undefined {
  if (raw === null || raw === undefined) return undefined;
  let value = String(raw);
  if (quoted) {
    if (value === 'NULL') return undefined;
    if (/^'.*'$/s.test(value)) return `'${value.slice(1, -1).replace(/''/g, "'")}'`;
  }
  if (/^current_timestamp(\(\d\))?$/i.test(value)) return value.toLowerCase();
  if (TEXT_TYPES.test(type)) value = `'${value}'`;
  return value;
}

/**
 * A check clause folded so the same clause reads the same from both servers: MySQL writes
 * (`status` in (_utf8mb4'queued',_utf8mb4'running')), MariaDB `status` in ('queued','running').
 * Back-quotes, character-set introducers, spacing and one pair of outer parentheses go; lower case.
 */
export function normaliseCheck(clause: string): string {
  let folded = clause
    .replace(/`/g, '')
    .replace(/_[a-z0-9]+'/gi, "'")
    .replace(/\s+/g, ' ')
    .replace(/\(\s+/g, '(')
    .replace(/\s+\)/g, ')')
    .replace(/\s*,\s*/g, ',')
    .trim()
    .toLowerCase();
  while (folded.startsWith('(') && folded.endsWith(')') && isBalanced(folded.slice(1, -1)))
    folded = folded.slice(1, -1);
  return folded;
}

/** True when every parenthesis closes one opened before it: "(a) or (b)" is, "a) or (b" is not. */
function isBalanced(clause: string): boolean {
  let depth = 0;
  for (const char of clause) {
    if (char === '(') depth += 1;
    if (char === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

const isJsonCheck = (clause: string, column: string) =>
  normaliseCheck(clause) === `json_valid(${column.toLowerCase()})`;

function renderColumn(column: Column): string {
  const parts = [column.name, column.type, column.nullable ? 'null' : 'not null'];
  if (column.default !== undefined) parts.push(`default ${column.default}`);
  if (column.extra) parts.push(column.extra);
  if (column.collation) parts.push(`collate ${column.collation}`);
  return `  ${parts.join(' ')}`;
}

/** A connection or a pool: describeSchema only queries. */
type Queryable = Pick<mysql.Connection | mysql.Pool, 'query'>;

/** The schema of `database` (tables, columns, keys, foreign keys, checks), as plain normalised text. */
export async function describeSchema(connection: Queryable, database: string): Promise<string> {
  const query = async (sql: string) => (await connection.query<RowDataPacket[]>(sql, [database]))[0];
  const [version] = (await connection.query<RowDataPacket[]>('SELECT VERSION() AS version'))[0];
  const mariadb = /mariadb/i.test(text(version!, 'version'));
  const databaseCollation = text(
    (await query(SCHEMA_QUERIES.databaseCollation))[0] ?? ({} as RowDataPacket),
    'collation_name',
  );

  const checks = (await query(SCHEMA_QUERIES.checks)).filter((row) => text(row, 'table_name') !== LEDGER_TABLE);
  const jsonColumns = new Set(
    checks
      .filter((row) => isJsonCheck(text(row, 'check_clause'), text(row, 'constraint_name')))
      .map((row) => `${text(row, 'table_name')}.${text(row, 'constraint_name')}`),
  );

  const tables = new Map<string, string[]>();
  const section = (table: string) => tables.get(table) ?? tables.set(table, []).get(table)!;
  for (const row of await query(SCHEMA_QUERIES.columns)) {
    const table = text(row, 'table_name');
    if (table === LEDGER_TABLE) continue;
    const name = text(row, 'column_name');
    const json = jsonColumns.has(`${table}.${name}`) && /^longtext/i.test(text(row, 'column_type'));
    const type = json ? 'json' : normaliseType(text(row, 'column_type'));
    const collation = text(row, 'collation_name');
    section(table).push(
      renderColumn({
        name,
        type,
        nullable: text(row, 'is_nullable') === 'YES',
        default: normaliseDefault(field(row, 'column_default'), type, mariadb),
        extra: text(row, 'extra')
          .replace(/DEFAULT_GENERATED\s*/i, '')
          .trim()
          .toLowerCase(),
        // Only where it differs from the database's (ascii_bin ids, say); json has none worth showing.
        collation: collation && collation !== databaseCollation && !json ? collation : undefined,
      }),
    );
  }

  const indexes = new Map<string, { table: string; unique: boolean; columns: string[] }>();
  for (const row of await query(SCHEMA_QUERIES.indexes)) {
    const table = text(row, 'table_name');
    if (table === LEDGER_TABLE) continue;
    const key = `${table}.${text(row, 'index_name')}`;
    const index =
      indexes.get(key) ??
      indexes.set(key, { table, unique: Number(field(row, 'non_unique')) === 0, columns: [] }).get(key)!;
    const prefix = field(row, 'sub_part');
    index.columns.push(
      prefix === null || prefix === undefined
        ? text(row, 'column_name')
        : `${text(row, 'column_name')}(${String(prefix)})`,
    );
  }
  // The primary key first, then the other keys by name (the servers sort 'PRIMARY' differently).
  const named = [...indexes].map(([key, index]) => ({ ...index, name: key.slice(index.table.length + 1) }));
  named.sort(
    (a, b) =>
      Number(b.name === 'PRIMARY') - Number(a.name === 'PRIMARY') || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  for (const index of named) {
    section(index.table).push(
      index.name === 'PRIMARY'
        ? `  primary key (${index.columns.join(', ')})`
        : `  ${index.unique ? 'unique' : 'index'} ${index.name} (${index.columns.join(', ')})`,
    );
  }

  const foreignKeys = new Map<
    string,
    { table: string; columns: string[]; target: string; targets: string[]; rules: string }
  >();
  for (const row of await query(SCHEMA_QUERIES.foreignKeys)) {
    const table = text(row, 'table_name');
    const key = `${table}.${text(row, 'constraint_name')}`;
    const rules = `on delete ${text(row, 'delete_rule').toLowerCase()} on update ${text(row, 'update_rule').toLowerCase()}`;
    const fk =
      foreignKeys.get(key) ??
      foreignKeys
        .set(key, { table, columns: [], target: text(row, 'referenced_table_name'), targets: [], rules })
        .get(key)!;
    fk.columns.push(text(row, 'column_name'));
    fk.targets.push(text(row, 'referenced_column_name'));
  }
  for (const [key, fk] of foreignKeys) {
    section(fk.table).push(
      `  foreign key ${key.slice(fk.table.length + 1)} (${fk.columns.join(', ')}) references ${fk.target} (${fk.targets.join(', ')}) ${fk.rules}`,
    );
  }

  for (const row of checks) {
    const table = text(row, 'table_name');
    const name = text(row, 'constraint_name');
    if (jsonColumns.has(`${table}.${name}`)) continue;
    section(table).push(`  check ${name} (${normaliseCheck(text(row, 'check_clause'))})`);
  }

  return (
    [...tables.keys()]
      .sort()
      .map((table) => `table ${table}\n${tables.get(table)!.join('\n')}`)
      .join('\n\n') + '\n'
  );
}
