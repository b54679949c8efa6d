// Real database (the lab's own, tasks_lab10 on MariaDB/MySQL), migrated by the shared runner.
import { randomUUID } from 'node:crypto';
import type { Pool } from 'mysql2/promise';
import { migrateLab } from '@tasks-lab/infra';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openInventoryDatabase } from '../src/database.ts';
import { InsufficientStockError, deductStockOnce } from '../src/inventory.ts';
import { countDeductions, readStock, setStock, takeStock } from '../src/queries.ts';

let pool: Pool;
beforeAll(async () => {
  pool = await openInventoryDatabase();
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
  it("When migrations run again, Then nothing is applied twice and lesson 10's file is recorded", async () => {
    const report = await migrateLab('10');
    expect(report.applied).toEqual([]);
    expect(report.alreadyApplied.map((m) => `${m.lab}/${m.file}`)).toContain('10/001-inventory.sql');
  });

  it('When the same order is deducted twice, Then the second call is "already applied" and stock drops once [test:same-order-twice-once]', async () => {
    const sku = await newSku(10);
    const order = { orderId: `order-${randomUUID()}`, sku, quantity: 3 };
    expect(await deductStockOnce(pool, order)).toBe('deducted');
    expect(await deductStockOnce(pool, order)).toBe('already applied');
    expect(await readStock(pool, sku)).toBe(7);
    expect(await countDeductions(pool, order.orderId)).toBe(1);
  });

  it('When the same order is deducted by 8 callers at once, Then exactly one deducts [test:same-order-concurrent-once]', async () => {
    const sku = await newSku(10);
    const order = { orderId: `order-${randomUUID()}`, sku, quantity: 1 };
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => deductStockOnce(pool, order)));
    expect(outcomes.filter((o) => o === 'deducted')).toHaveLength(1);
    expect(await readStock(pool, sku)).toBe(9);
  });

  it('When stock is short, Then the order fails with insufficient-stock and leaves no record (a later try may still apply it)', async () => {
    const sku = await newSku(1);
    const order = { orderId: `order-${randomUUID()}`, sku, quantity: 2 };
    await expect(deductStockOnce(pool, order)).rejects.toBeInstanceOf(InsufficientStockError);
    await expect(deductStockOnce(pool, order)).rejects.toMatchObject({ code: 'insufficient-stock' });
    expect(await countDeductions(pool, order.orderId)).toBe(0);
    expect(await readStock(pool, sku)).toBe(1);
  });

  it('When stock is taken directly, Then the affected-row count says whether there was enough', async () => {
    const sku = await newSku(3);
    expect(await takeStock(pool, sku, 2)).toBe(true);
    expect(await takeStock(pool, sku, 2)).toBe(false);
    expect(await takeStock(pool, 'no-such-sku', 1)).toBe(false);
    expect(await readStock(pool, sku)).toBe(1);
  });
});
