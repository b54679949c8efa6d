// Idempotent stock deduction (the deep dive). Retries and redeliveries mean a job
// runs AT LEAST once; this makes running it again harmless. One short transaction:
// insert the order's deduction record, then take the stock. A duplicate key on the
// insert means the order was already applied, so nothing is taken twice.
import type { Pool } from 'mysql2/promise';
import { CodedError } from '@tasks-lab/lab-kit';
import { insertDeductionRecord, takeStock, type StockDeduction } from './queries.ts';

export const ER_DUP_ENTRY = 1062;

export type DeductionOutcome = 'deducted' | 'already applied';

export class InsufficientStockError extends CodedError {
  constructor({ orderId, sku }: StockDeduction) {
    super('insufficient-stock', `not enough stock of ${sku} for order ${orderId}`);
  }
}

const isDuplicateKey = (err: unknown) => (err as { errno?: number }).errno === ER_DUP_ENTRY;

export async function deductStockOnce(pool: Pool, deduction: StockDeduction): Promise<DeductionOutcome> {
  const connection = await pool.getConnection();
  try {
    await connection.beginTransaction();
    try {
      await insertDeductionRecord(connection, deduction);
    } catch (err) {
      await connection.rollback();
      if (isDuplicateKey(err)) return 'already applied';
      throw err;
    }
    if (!(await takeStock(connection, deduction.sku, deduction.quantity))) {
      await connection.rollback(); // the record goes too: the order was not applied
      throw new InsufficientStockError(deduction);
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
