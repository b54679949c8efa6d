import { UnrecoverableError, type Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { createProcessor, UnknownJobNameError } from '../src/export-worker.ts';

// The dispatcher only reads a job's name; a plain object with that field is enough here.
const jobNamed = (name: string) => ({ name, data: {} }) as unknown as Job;

describe('createProcessor', () => {
  it('When a job name is registered, Then its handler runs and its value is the result', async () => {
    const processor = createProcessor({ 'products.export': async () => 'done' });
    await expect(processor(jobNamed('products.export'))).resolves.toBe('done');
  });

  it('When a job name is not registered, Then it is refused as unrecoverable, naming what the worker handles', async () => {
    const processor = createProcessor({ 'products.export': async () => 'done' });
    const refusal = processor(jobNamed('products.exprot'));
    await expect(refusal).rejects.toBeInstanceOf(UnknownJobNameError);
    await expect(refusal).rejects.toBeInstanceOf(UnrecoverableError);
    await expect(refusal).rejects.toThrow('no processor registered for job name "products.exprot"; this worker handles: products.export');
  });

  it('When the name is an inherited object property, Then it is not mistaken for a handler', async () => {
    const processor = createProcessor({});
    await expect(processor(jobNamed('toString'))).rejects.toBeInstanceOf(UnknownJobNameError);
  });
});
