// Every statement lesson 10 runs on its database, as a named function with `?`
// parameters only (never a value spliced into SQL). The tables come from
// migrations/001-inventory.sql. Each header says what the statement guarantees and
// what its affected-row count means: that count is how the code learns what happened.
import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';

/** A pool, or one connection of it inside a transaction. */
export type Sql = Pool | PoolConnection;

export interface StockDeduction {
  /** The business key: one order is deducted once, whatever the job id or attempt. */
  orderId: string;
  sku: string;
  quantity: number;
}

/**
 * Records that an order's deduction is applied. Guarantees at most one row per order:
 * order_id is the primary key, so a second insert for the same order fails with
 * ER_DUP_ENTRY (1062), and a concurrent one waits for the first transaction's key lock,
 * then fails the same way. affectedRows: 1 when the row was inserted.
 */
export async function insertDeductionRecord(sql: Sql, { orderId, sku, quantity }: StockDeduction): Promise<void> {
  await sql.execute('INSERT INTO inventory_deductions (order_id, sku, quantity) VALUES (?, ?, ?)', [
    orderId,
    sku,
    quantity,
  ]);
}

/**
 * Takes `quantity` of a SKU only if that much is in stock. One UPDATE checks and
 * subtracts together, so two takers can never both pass the check and go below zero.
 * affectedRows: 1 taken; 0 not enough stock (or no such SKU), and nothing changed.
 */
export async function takeStock(sql: Sql, sku: string, quantity: number): Promise<boolean> {
  const [result] = await sql.execute<ResultSetHeader>(
    'UPDATE inventory_stock SET quantity = quantity - ? WHERE sku = ? AND quantity >= ?',
    [quantity, sku, quantity],
  );
  return result.affectedRows === 1;
}

/**
 * Sets a SKU's stock to a known number (drills and tests start from one).
 * affectedRows: 1 inserted, 2 updated (MySQL counts an upsert's update as 2), 0 already that number.
 */
export async function setStock(sql: Sql, sku: string, quantity: number): Promise<void> {
  await sql.execute('INSERT INTO inventory_stock (sku, quantity) VALUES (?, ?) ON DUPLICATE KEY UPDATE quantity = ?', [
    sku,
    quantity,
    quantity,
  ]);
}

/** A SKU's stock, or undefined when there is no such SKU. Reads only (no affected rows). */
export async function readStock(sql: Sql, sku: string): Promise<number | undefined> {
  const [rows] = await sql.execute<RowDataPacket[]>('SELECT quantity FROM inventory_stock WHERE sku = ?', [sku]);
  const [row] = rows;
  return row === undefined ? undefined : Number(row.quantity);
}

/** How many deduction records an order has: 0 or 1 while the primary key holds. Reads only. */
export async function countDeductions(sql: Sql, orderId: string): Promise<number> {
  const [rows] = await sql.execute<RowDataPacket[]>(
    'SELECT COUNT(*) AS n FROM inventory_deductions WHERE order_id = ?',
    [orderId],
  );
  return Number(rows[0]?.n ?? 0);
}
