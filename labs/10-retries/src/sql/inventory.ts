// Every statement the inventory code runs, named, with `?` parameters only.
export const INVENTORY_SQL = {
  /** The dedupe row: fails with errno 1062 when this order was already applied. */
  insertDeduction: 'INSERT INTO inventory_deductions (order_id, sku, quantity) VALUES (?, ?, ?)',
  /** Takes stock only if there is enough; affectedRows 0 means there was not. */
  deductStock: 'UPDATE inventory_stock SET quantity = quantity - ? WHERE sku = ? AND quantity >= ?',
  /** Sets a SKU's stock (drills and tests start from a known number). */
  setStock: 'INSERT INTO inventory_stock (sku, quantity) VALUES (?, ?) ON DUPLICATE KEY UPDATE quantity = ?',
  readStock: 'SELECT quantity FROM inventory_stock WHERE sku = ?',
  countDeductions: 'SELECT COUNT(*) AS n FROM inventory_deductions WHERE order_id = ?',
} as const;

export const MIGRATION_SQL = {
  createLedger:
    'CREATE TABLE IF NOT EXISTS schema_migrations (name VARCHAR(128) NOT NULL, applied_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), PRIMARY KEY (name)) ENGINE = InnoDB',
  listApplied: 'SELECT name FROM schema_migrations',
  /** IGNORE: two processes migrating at once both succeed; the statements themselves are IF NOT EXISTS. */
  markApplied: 'INSERT IGNORE INTO schema_migrations (name) VALUES (?)',
} as const;
