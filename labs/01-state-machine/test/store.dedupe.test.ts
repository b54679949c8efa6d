// The store contract's de-duplication rule must be able to fail: against a store of the
// old design (ids kept exactly as sent) it does; against MemoryJobStore it passes.
import { describe, expect, it } from 'vitest';
import { MemoryJobStore } from '../src/store.ts';
import { KeepsRepeatsStore } from './fixtures/keeps-repeats-store.ts';
import { expectDistinctProductIds } from './store-contract.ts';

describe('store contract: the de-duplication rule', () => {
  it('When a store keeps repeated product ids as sent (the old design), Then the rule rejects it', async () => {
    await expect(expectDistinctProductIds(new KeepsRepeatsStore())).rejects.toThrow(/create\(\) answers/);
  });

  it('When MemoryJobStore is graded, Then the rule passes', async () => {
    await expect(expectDistinctProductIds(new MemoryJobStore())).resolves.toBeUndefined();
  });
});
