// Idempotent stock deduction (the deep dive). Retries and redeliveries mean a job
// runs AT LEAST once; this makes running it again harmless. One short transaction:
// insert the order's dedupe row, then take the stock. A duplicate key on the insert
// means the order was already applied, so nothing is taken twice.
import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { INVENTORY_SQL } from './sql/inventory.ts';

export const ER_DUP_ENTRY = 1062;

export interface StockDeduction {
  /** The business key: one order is deducted once, whatever the job id or attempt. */
  orderId: string;
  sku: string;
  quantity: number;
}

export type DeductionOutcome = 'deducted' | 'already applied';

export class InsufficientStockError extends Error {
  override name = 'InsufficientStockError';
}

const isDuplicateKey = (err: unknown) => (err as { errno?: number }).errno === ER_DUP_ENTRY;

export async function deductStockOnce(pool: Pool, { orderId, sku, quantity }: StockDeduction): Promise<DeductionOutcome> {
  const connection = await pool.getConnection();
  try {
    await connection.beginTransaction();
    try {
      await connection.execute(INVENTORY_SQL.insertDeduction, [orderId, sku, quantity]);
    } catch (err) {
      await connection.rollback();
      if (isDuplicateKey(err)) return 'already applied';
      throw err;
    }
    const [update] = await connection.execute<ResultSetHeader>(INVENTORY_SQL.deductStock, [quantity, sku, quantity]);
    if (update.affectedRows !== 1) {
      await connection.rollback(); // the dedupe row goes too: the order was not applied
      throw new InsufficientStockError(`not enough stock of ${sku} for order ${orderId}`);
    }
    await connection.commit();
    return 'deducted';
  } catch (err) {
    await connection.rollback().catch(() => {});
    throw err;
  } finally {
    connection.release();
  }
}

export async function setStock(pool: Pool, sku: string, quantity: number): Promise<void> {
  await pool.execute(INVENTORY_SQL.setStock, [sku, quantity, quantity]);
}

export async function readStock(pool: Pool, sku: string): Promise<number | undefined> {
  const [rows] = await pool.execute<RowDataPacket[]>(INVENTORY_SQL.readStock, [sku]);
  return rows.length === 0 ? undefined : Number(rows[0].quantity);
}

export async function countDeductions(pool: Pool, orderId: string): Promise<number> {
  const [rows] = await pool.execute<RowDataPacket[]>(INVENTORY_SQL.countDeductions, [orderId]);
  return Number(rows[0].n);
}
