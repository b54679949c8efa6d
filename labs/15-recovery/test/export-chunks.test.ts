// writeArtifactInChunks on a real folder (no database): a complete export is lesson 11's file,
// byte for byte; canContinue and the abort signal are asked BEFORE each chunk, and a stop at
// any chunk boundary leaves no file at all (neither the final name nor a temp file).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderArtifact } from '@tasks-lab/11-mysql-leases';
import { chunksOf, writeArtifactInChunks } from '../src/export-chunks.ts';

const rowsOf = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    name: `Product ${i + 1}`,
    description: 'a "quoted"\nline',
    is_active: true,
    price_cents: 100 + i,
  }));
const NAME = 'job.token.json';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tasks-lab15-chunks-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeArtifactInChunks', () => {
  it('When every check says yes, Then the file is lesson 11 renderArtifact output byte for byte, and canContinue was asked once per chunk [test:chunks-complete-same-bytes]', async () => {
    for (const n of [0, 1, 10, 25]) {
      let asked = 0;
      const result = await writeArtifactInChunks(dir, `${n}.json`, rowsOf(n), {
        chunkRows: 10,
        canContinue: async () => (asked += 1) > 0,
      });
      expect(result).toMatchObject({
        completed: true,
        chunksWritten: Math.max(1, Math.ceil(n / 10)),
        chunksTotal: Math.max(1, Math.ceil(n / 10)),
      });
      expect(asked).toBe(result.chunksTotal);
      expect(await readFile(join(dir, `${n}.json`))).toEqual(renderArtifact(rowsOf(n)));
    }
    expect((await readdir(dir)).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('When the artifact folder is removed between two exports, Then the second makes it again and is written [test:chunks-folder-made-again]', async () => {
    const folder = join(dir, 'artifacts');
    const always = { chunkRows: 10, canContinue: async () => true };
    expect(await writeArtifactInChunks(folder, 'a.json', rowsOf(1), always)).toMatchObject({ completed: true });
    await rm(folder, { recursive: true });
    expect(await writeArtifactInChunks(folder, 'b.json', rowsOf(1), always)).toMatchObject({ completed: true });
    expect(await readdir(folder)).toEqual(['b.json']);
  });

  it('When canContinue says no before the third chunk, Then two chunks were written, the export stops as lost-lease-or-cancelled and no file is left [test:chunks-stop-leaves-no-artifact]', async () => {
    let asked = 0;
    const result = await writeArtifactInChunks(dir, NAME, rowsOf(40), {
      chunkRows: 10,
      canContinue: async () => (asked += 1) <= 2,
    });
    expect(result).toEqual({
      completed: false,
      chunksWritten: 2,
      chunksTotal: 4,
      stoppedBecause: 'lost-lease-or-cancelled',
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it('When canContinue says no before the first chunk, Then nothing is written [test:chunks-checked-before-first]', async () => {
    const result = await writeArtifactInChunks(dir, NAME, rowsOf(5), { chunkRows: 10, canContinue: async () => false });
    expect(result).toMatchObject({ completed: false, chunksWritten: 0, stoppedBecause: 'lost-lease-or-cancelled' });
    expect(await readdir(dir)).toEqual([]);
  });

  it('When the signal is aborted between chunks, Then the export stops at the next boundary as aborted, without asking canContinue again [test:chunks-abort-stops]', async () => {
    const controller = new AbortController();
    let asked = 0;
    const result = await writeArtifactInChunks(dir, NAME, rowsOf(30), {
      chunkRows: 10,
      signal: controller.signal,
      canContinue: async () => (asked += 1) > 0,
      beforeChunk: async (index) => {
        if (index === 1) controller.abort();
      },
    });
    expect(result).toMatchObject({ completed: false, chunksWritten: 1, stoppedBecause: 'aborted' });
    expect(asked).toBe(1);
    expect(await readdir(dir)).toEqual([]);
  });

  it('When canContinue throws (the database is down), Then the error reaches the caller and no file is left [test:chunks-error-no-artifact]', async () => {
    await expect(
      writeArtifactInChunks(dir, NAME, rowsOf(20), {
        chunkRows: 10,
        canContinue: async () => Promise.reject(new Error('db down')),
      }),
    ).rejects.toThrow('db down');
    expect(await readdir(dir)).toEqual([]);
  });

  it('When the name is a path, Then it is refused before anything is written [test:chunks-refuse-path]', async () => {
    await expect(
      writeArtifactInChunks(dir, '../x.json', rowsOf(1), { chunkRows: 10, canContinue: async () => true }),
    ).rejects.toThrow(TypeError);
    expect(() => chunksOf([1], 0)).toThrow(RangeError);
  });
});
