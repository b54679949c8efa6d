// `pnpm lab sql NN [-e "SELECT ..."]` and `pnpm lab products NN COUNT`: a lab's database from the
// command line, so that a lesson step such as "look at the row" or "add some products first" is one
// command a student can type, with nothing to look up.
import { spawn } from 'node:child_process';
import mysql from 'mysql2/promise';
import { ensureInfra, labDatabase, migrateLab, mysqlOptions, readMode, sqlClientCommand } from '@tasks-lab/infra';
import type { Lab } from './labs.ts';

export class LabDatabaseError extends Error {}

/** How many products the lab's database holds. No parameters. */
const COUNT_PRODUCTS = 'SELECT COUNT(*) AS n FROM products';

/** Lessons 10 and later keep state in a database of their own: tasks_labNN. */
export function requireDatabase(lab: Lab): void {
  if (!lab.needs.includes('mysql')) {
    const where = lab.needs.includes('redis') ? 'in Redis (BullMQ job hashes)' : 'in memory';
    throw new LabDatabaseError(
      `Lesson ${lab.lesson.number} has no database: it keeps job state ${where}. Lessons 10 to 16 have one.`,
    );
  }
}

/** The database is up and holds the lab's tables: the same migrations the lab's processes apply. */
async function prepare(lab: Lab, database = labDatabase(lab.lesson.number)): Promise<void> {
  await ensureInfra({ services: lab.needs, log: (line) => console.error(`[infra] ${line}`) });
  await migrateLab(lab.lesson.number, { database });
}

/**
 * Opens the lab's database in the mariadb/mysql client (interactive), or runs the statements given
 * with -e and prints them as a table, the same on a terminal and in a pipe. Returns its exit code.
 */
export async function openSqlClient(lab: Lab, clientArgs: string[]): Promise<number> {
  requireDatabase(lab);
  await prepare(lab);
  const batch =
    clientArgs.includes('-e') || clientArgs.includes('--execute') || clientArgs.some((a) => a.startsWith('--execute='));
  // Batch mode prints tab-separated columns when its output is not a terminal; --table keeps the
  // boxed layout a student sees, so what a doc shows is what a pipe gets too.
  const args = batch ? ['--table', ...clientArgs] : clientArgs;
  const { command, args: argv } = sqlClientCommand(
    `tasks_lab${lab.lesson.number}`,
    args,
    readMode() ?? 'native',
    !batch,
  );
  // Ctrl-C at the client's prompt cancels a statement there; this process must not die of it.
  const ignore = () => {};
  process.on('SIGINT', ignore);
  try {
    return await new Promise<number>((resolve, reject) => {
      const child = spawn(command, argv, { stdio: 'inherit' });
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    });
  } finally {
    process.off('SIGINT', ignore);
  }
}

/**
 * Products 1 to `count` exist afterwards (lesson 11's seedProducts: the first five are the
 * migration's own). `database` is the lab's own unless a test names another.
 */
export async function addProducts(lab: Lab, count: number, database = labDatabase(lab.lesson.number)): Promise<string> {
  requireDatabase(lab);
  if (Number(lab.lesson.number) < 11)
    throw new LabDatabaseError(`Lesson ${lab.lesson.number} has no products table: lesson 11 adds it.`);
  await prepare(lab, database);
  const { seedProducts } = await import('@tasks-lab/11-mysql-leases');
  const pool = mysql.createPool(mysqlOptions(database));
  try {
    const countProducts = async () => {
      const [rows] = await pool.query(COUNT_PRODUCTS);
      return Number((rows as Array<{ n: number }>)[0]?.n ?? 0);
    };
    const before = await countProducts();
    await seedProducts(pool, count);
    const after = await countProducts();
    return `products 1 to ${count} exist in ${database}: ${after - before} added, ${after} in all`;
  } finally {
    await pool.end();
  }
}
