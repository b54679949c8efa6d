import { faultPoints, FAULTS_ENV } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { InvalidJobDataError } from '../src/errors.ts';
import { TemporaryExportError, isRetryable } from '../src/export-errors.ts';
import { UnknownCategoryError, parseRetryExportData, readProductSource } from '../src/export-job.ts';
import { RETRY_FAULT_POINTS } from '../src/faults.ts';

const valid = { job_id: 'abc-1', deadline_at: Date.now() + 1000, category: 'samples' };
const faults = (rules = '') => faultPoints(RETRY_FAULT_POINTS, { [FAULTS_ENV]: rules });

describe('export-job: job data', () => {
  it('When the data is complete, Then it is accepted unchanged', () => {
    expect(parseRetryExportData(valid)).toEqual(valid);
  });

  it('When the deadline is missing or the job id has a colon, Then it is refused with every problem named and code invalid-job-data', () => {
    const { deadline_at: _dropped, ...noDeadline } = valid;
    const refuse = () => parseRetryExportData({ ...noDeadline, job_id: 'a:b' });
    expect(refuse).toThrow(/job_id .*; deadline_at must be epoch milliseconds/);
    expect(refuse).toThrow(InvalidJobDataError);
    expect(() => parseRetryExportData(null)).toThrow(expect.objectContaining({ code: 'invalid-job-data' }));
  });
});

describe('export-job: the product source and its fault points', () => {
  it('When LAB_FAULTS says source-read:throw:2, Then reads 1 and 2 fail with a retryable temporary error and read 3 returns the product', async () => {
    const source = faults('source-read:throw:2');
    for (const _read of [1, 2]) {
      const err = await readProductSource('samples', source).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TemporaryExportError);
      expect(err).toMatchObject({ code: 'temporary-source-failure', cause: { code: 'fault-injected' } });
      expect(isRetryable(err)).toBe(true);
    }
    await expect(readProductSource('samples', source)).resolves.toHaveLength(1);
  });

  it('When the category does not exist, Then the read fails with unknown-category, which is not retryable', async () => {
    const err = await readProductSource('discontinued', faults()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownCategoryError);
    expect(err).toMatchObject({ code: 'unknown-category', message: 'no such product category: discontinued' });
    expect(isRetryable(err)).toBe(false);
  });

  it('When source-connect is delayed, Then the read takes at least that long and still succeeds', async () => {
    const started = Date.now();
    await expect(readProductSource('samples', faults('source-connect:delay-200'))).resolves.toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});
