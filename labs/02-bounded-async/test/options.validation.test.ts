// The batch's limits and timings are read once and checked (src/options.ts).
import { describe, expect, it } from 'vitest';
import { OptionsError } from '@tasks-lab/lab-kit';
import { BATCH_DEFAULTS, BATCH_OPTIONS } from '../src/index.ts';
import { readCliSettings } from '../scripts/batch.ts';

describe('BATCH_OPTIONS', () => {
  it('When nothing is set, Then the course values apply: 4 consumers, queue 4, 2 reads at once, 100 ms reads, 3000 ms budget', () => {
    expect(BATCH_OPTIONS.read({ env: {} })).toEqual({
      consumers: 4,
      queueCapacity: 4,
      readConcurrency: 2,
      readDelayMs: 100,
      readTimeoutMs: 1000,
      budgetMs: 3000,
      productCount: 20,
    });
    expect(BATCH_DEFAULTS).toEqual(BATCH_OPTIONS.read({ env: {} }));
  });

  it('When a variable is set, Then its value is used', () => {
    expect(BATCH_OPTIONS.read({ env: { BATCH_READS_AT_ONCE: '3', BATCH_BUDGET_MS: '150' } })).toMatchObject({
      readConcurrency: 3,
      budgetMs: 150,
    });
  });

  it.each([
    ['BATCH_BUDGET_MS', '0'],
    ['BATCH_BUDGET_MS', '-5'],
    ['READ_DELAY_MS', 'fast'],
    ['READ_TIMEOUT_MS', '0'],
    ['BATCH_CONSUMERS', '0'],
    ['BATCH_QUEUE_CAPACITY', '-1'],
    ['BATCH_READS_AT_ONCE', 'two'],
  ])('When %s is "%s", Then it is refused with a message naming the variable and its bounds', (variable, value) => {
    const read = () => BATCH_OPTIONS.read({ env: { [variable]: value } });
    expect(read).toThrow(OptionsError);
    expect(read).toThrow(
      new RegExp(`${variable} must be a whole number (of milliseconds )?from 1 to \\d+, got "${value}"`),
    );
  });
});

describe('scripts/batch.ts flags', () => {
  it('When --budget-ms and --products are given, Then they set the budget and the batch size', () => {
    const { options, failProduct } = readCliSettings(['--budget-ms', '150', '--products', '8'], {});
    expect(options).toMatchObject({ budgetMs: 150, productCount: 8 });
    expect(failProduct).toBeUndefined();
  });

  it('When --budget-ms is 0, Then it is refused like BATCH_BUDGET_MS=0', () => {
    expect(() => readCliSettings(['--budget-ms', '0'], {})).toThrow(
      /BATCH_BUDGET_MS must be a whole number of milliseconds from 1/,
    );
  });

  it('When --fail-product is not a product id, Then it is refused', () => {
    expect(() => readCliSettings(['--fail-product', 'three'], {})).toThrow('--fail-product must be a product id');
    expect(readCliSettings(['--fail-product', '3'], {}).failProduct).toBe(3);
  });
});
