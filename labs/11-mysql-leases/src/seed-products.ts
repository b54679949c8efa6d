// Numbered products for tests and experiments: lesson 01's contract creates jobs of products
// 1 to 100, a bulk export (lesson 13) needs more than 30, and a MySQL job freezes a snapshot of
// REAL products, so a fresh database gets as many as it needs. The migration seeds the first five.
import type { Pool } from 'mysql2/promise';

/** Adds products 1..count that are not there yet (INSERT IGNORE keeps the seeded ones). Parameters: [rows]. */
const ADD_NUMBERED_PRODUCTS = 'INSERT IGNORE INTO products (id, name, description, is_active, price_cents) VALUES ?';

/** Products 1 to `count` exist afterwards: "Product N", active, N × 100 cents. */
export async function seedProducts(pool: Pick<Pool, 'query'>, count: number): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => [
    i + 1,
    `Product ${i + 1}`,
    `Test product number ${i + 1}`,
    true,
    100 * (i + 1),
  ]);
  await pool.query(ADD_NUMBERED_PRODUCTS, [rows]);
}
