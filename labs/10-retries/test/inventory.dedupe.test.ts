// Real database (the lab's own, tasks_lab10 on MariaDB/MySQL).
import { randomUUID } from 'node:crypto';
import type { Pool } from 'mysql2/promise';
import { openLabDatabase } from '@tasks-lab/infra';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InsufficientStockError, countDeductions, deductStockOnce, readStock, setStock } from '../src/inventory.ts';
import { migrateLabDatabase } from '../src/migrate.ts';

let pool: Pool;
beforeAll(async () => {
  pool = await openLabDatabase('10');
  await migrateLabDatabase(pool);
});
afterAll(async () => {
  await pool.end();
});

const newSku = async (quantity: number) => {
  const sku = `sku-${randomUUID().slice(0, 8)}`;
  await setStock(pool, sku, quantity);
  return sku;
};

describe('inventory: deduct once per order', () => {
  it('When migrations run again, Then nothing is applied twice', async () => {
    expect(await migrateLabDatabase(pool)).toEqual([]);
  });

  it('When the same order is deducted twice, Then the second call is "already applied" and stock drops once', async () => {
    const sku = await newSku(10);
    const order = { orderId: `order-${randomUUID()}`, sku, quantity: 3 };
    expect(await deductStockOnce(pool, order)).toBe('deducted');
    expect(await deductStockOnce(pool, order)).toBe('already applied');
    expect(await readStock(pool, sku)).toBe(7);
    expect(await countDeductions(pool, order.orderId)).toBe(1);
  });

  it('When the same order is deducted by 8 callers at once, Then exactly one deducts', async () => {
    const sku = await newSku(10);
    const order = { orderId: `order-${randomUUID()}`, sku, quantity: 1 };
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => deductStockOnce(pool, order)));
    expect(outcomes.filter((o) => o === 'deducted')).toHaveLength(1);
    expect(await readStock(pool, sku)).toBe(9);
  });

  it('When stock is short, Then the order fails and leaves no dedupe row (a later try may still apply it)', async () => {
    const sku = await newSku(1);
    const order = { orderId: `order-${randomUUID()}`, sku, quantity: 2 };
    await expect(deductStockOnce(pool, order)).rejects.toBeInstanceOf(InsufficientStockError);
    expect(await countDeductions(pool, order.orderId)).toBe(0);
    expect(await readStock(pool, sku)).toBe(1);
  });
});
