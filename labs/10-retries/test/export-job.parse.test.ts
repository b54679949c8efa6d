import { describe, expect, it } from 'vitest';
import { parseRetryExportData, readProductSource } from '../src/export-job.ts';
import { TemporaryExportError } from '../src/export-errors.ts';

const valid = { job_id: 'abc-1', deadline_at: Date.now() + 1000, fail_until: 2, fail_with: 'temporary', read_ms: 0 };

describe('export-job: job data', () => {
  it('When the data is complete, Then it is accepted unchanged', () => {
    expect(parseRetryExportData(valid)).toEqual(valid);
  });

  it('When the deadline is missing or the job id has a colon, Then it is refused with every problem named', () => {
    const { deadline_at: _dropped, ...noDeadline } = valid;
    expect(() => parseRetryExportData({ ...noDeadline, job_id: 'a:b' })).toThrow(/job_id .*; deadline_at must be epoch milliseconds/);
  });

  it('When fail_until is 2, Then runs 1 and 2 fail temporarily and run 3 reads one product', async () => {
    const data = parseRetryExportData(valid);
    await expect(readProductSource(1, data)).rejects.toBeInstanceOf(TemporaryExportError);
    await expect(readProductSource(2, data)).rejects.toBeInstanceOf(TemporaryExportError);
    await expect(readProductSource(3, data)).resolves.toHaveLength(1);
  });

  it('When the failure is permanent, Then every run fails with an input error', async () => {
    const data = parseRetryExportData({ ...valid, fail_with: 'permanent' });
    await expect(readProductSource(9, data)).rejects.toThrow('invalid export request');
  });
});
