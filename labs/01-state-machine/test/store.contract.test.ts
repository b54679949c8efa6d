// Lesson 01's store against the JobStore contract that every store must keep
// (lesson 11 runs the same suite against its MySQL store).
import { MemoryJobStore } from '../src/store.ts';
import { describeJobStoreContract } from './store-contract.ts';

describeJobStoreContract('MemoryJobStore', async () => ({ store: new MemoryJobStore() }));
