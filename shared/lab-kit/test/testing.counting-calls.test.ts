// countingCalls: a test's way to count round trips (queries sent, connections borrowed).
import { describe, expect, it } from 'vitest';
import { countingCalls } from '../src/testing.ts';

class Pool {
  sent: string[] = [];
  async query(sql: string): Promise<string> {
    this.sent.push(sql);
    return `ran ${sql}`;
  }
  async getConnection(): Promise<string> {
    return 'a connection';
  }
  get name(): string {
    return 'pool';
  }
}

describe('countingCalls', () => {
  it('When counted methods are called, Then each call is counted and still reaches the target with its own this', async () => {
    const pool = new Pool();
    const { counted, calls } = countingCalls(pool, ['query', 'getConnection']);
    expect(await counted.query('SELECT 1')).toBe('ran SELECT 1');
    await counted.query('SELECT 2');
    await counted.getConnection();
    expect(calls).toEqual({ query: 2, getConnection: 1 });
    expect(pool.sent).toEqual(['SELECT 1', 'SELECT 2']);
  });

  it('When another property is read, Then it is the target own, not counted', () => {
    const { counted, calls } = countingCalls(new Pool(), ['query']);
    expect(counted.name).toBe('pool');
    expect(calls).toEqual({ query: 0 });
  });
});
