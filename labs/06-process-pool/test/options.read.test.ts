import { OptionsError } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { PROCESS_POOL_OPTIONS } from '../src/options.ts';

describe('PROCESS_POOL_OPTIONS', () => {
  it('When nothing is set, Then the course values apply (2 workers, 8 rows, 2000 rounds)', () => {
    expect(PROCESS_POOL_OPTIONS.read({ env: {} })).toMatchObject({ poolSize: 2, rows: 8, rounds: 2000, drillRows: 12 });
  });

  it('When POOL_SIZE is 0, Then it is refused naming the variable and its bounds [test:pool-size-bounded]', () => {
    expect(() => PROCESS_POOL_OPTIONS.read({ env: { POOL_SIZE: '0' } })).toThrow(OptionsError);
    expect(() => PROCESS_POOL_OPTIONS.read({ env: { POOL_SIZE: '0' } })).toThrow(
      'POOL_SIZE must be a whole number from 1 to 16, got "0"',
    );
  });

  it('When a timing is not a number, Then it is refused naming the variable', () => {
    expect(() => PROCESS_POOL_OPTIONS.read({ env: { WORKER_START_TIMEOUT_MS: 'soon' } })).toThrow(
      /WORKER_START_TIMEOUT_MS must be a whole number of milliseconds from 1 to 300000, got "soon"/,
    );
  });

  it('When the environment sets a value, Then it is read as a number', () => {
    expect(PROCESS_POOL_OPTIONS.read({ env: { SCORE_ROUNDS: '10', POOL_SIZE: '3' } })).toMatchObject({
      rounds: 10,
      poolSize: 3,
    });
  });
});
